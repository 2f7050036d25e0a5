#include "tessera/device/arch_spec.h"

#include <sched.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace tessera::device {

uint32_t HardwareThreads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<uint32_t>(count);
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

std::string DetectSoc() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool v2 = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
                  __builtin_cpu_supports("ssse3");
  const bool v3 = v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                  __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("movbe");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
  if (v4) return "x86-64-v4";
  if (v3) return "x86-64-v3";
  if (v2) return "x86-64-v2";
  return "x86-64";
#elif defined(__aarch64__)
  return "armv8-a";
#else
  return "generic";
#endif
}

namespace {

// Models by -march/-mcpu name. Levels follow the x86-64 psABI feature sets each model implements.
constexpr std::array<CpuModel, 30> kCpuModels = {{
    {"nehalem", "x86-64-v2"},        {"westmere", "x86-64-v2"},
    {"sandybridge", "x86-64-v2"},    {"ivybridge", "x86-64-v2"},
    {"haswell", "x86-64-v3"},        {"broadwell", "x86-64-v3"},
    {"skylake", "x86-64-v3"},        {"alderlake", "x86-64-v3"},
    {"skylake-avx512", "x86-64-v4"}, {"cascadelake", "x86-64-v4"},
    {"cooperlake", "x86-64-v4"},     {"icelake-client", "x86-64-v4"},
    {"icelake-server", "x86-64-v4"}, {"tigerlake", "x86-64-v4"},
    {"rocketlake", "x86-64-v4"},     {"sapphirerapids", "x86-64-v4"},
    {"emeraldrapids", "x86-64-v4"},  {"graniterapids", "x86-64-v4"},
    {"znver1", "x86-64-v3"},         {"znver2", "x86-64-v3"},
    {"znver3", "x86-64-v3"},         {"znver4", "x86-64-v4"},
    {"znver5", "x86-64-v4"},         {"cortex-a72", "armv8-a"},
    {"cortex-a76", "armv8-a"},       {"neoverse-n1", "armv8-a"},
    {"neoverse-v1", "armv8-a"},      {"neoverse-n2", "armv8-a"},
    {"neoverse-v2", "armv8-a"},      {"a64fx", "armv8-a"},
}};

struct ModelRange {
  uint32_t first, last;  // display models, inclusive
  uint32_t min_stepping, max_stepping;
  std::string_view name;
};

// Intel family 6 display models (Intel SDM vol. 4, table 2-1), as GCC's -march names them.
constexpr std::array<ModelRange, 37> kIntelFamily6 = {{
    {0x1A, 0x1A, 0, 15, "nehalem"},        {0x1E, 0x1F, 0, 15, "nehalem"},
    {0x2E, 0x2E, 0, 15, "nehalem"},        {0x25, 0x25, 0, 15, "westmere"},
    {0x2C, 0x2C, 0, 15, "westmere"},       {0x2F, 0x2F, 0, 15, "westmere"},
    {0x2A, 0x2A, 0, 15, "sandybridge"},    {0x2D, 0x2D, 0, 15, "sandybridge"},
    {0x3A, 0x3A, 0, 15, "ivybridge"},      {0x3E, 0x3E, 0, 15, "ivybridge"},
    {0x3C, 0x3C, 0, 15, "haswell"},        {0x3F, 0x3F, 0, 15, "haswell"},
    {0x45, 0x46, 0, 15, "haswell"},        {0x3D, 0x3D, 0, 15, "broadwell"},
    {0x47, 0x47, 0, 15, "broadwell"},      {0x4F, 0x4F, 0, 15, "broadwell"},
    {0x56, 0x56, 0, 15, "broadwell"},      {0x4E, 0x4E, 0, 15, "skylake"},
    {0x5E, 0x5E, 0, 15, "skylake"},        {0x8E, 0x8E, 0, 15, "skylake"},
    {0x9E, 0x9E, 0, 15, "skylake"},        {0xA5, 0xA6, 0, 15, "skylake"},
    {0x55, 0x55, 0, 4, "skylake-avx512"},  {0x55, 0x55, 5, 7, "cascadelake"},
    {0x55, 0x55, 10, 11, "cooperlake"},    {0x7D, 0x7E, 0, 15, "icelake-client"},
    {0x6A, 0x6A, 0, 15, "icelake-server"}, {0x6C, 0x6C, 0, 15, "icelake-server"},
    {0x8C, 0x8D, 0, 15, "tigerlake"},      {0xA7, 0xA7, 0, 15, "rocketlake"},
    {0x97, 0x97, 0, 15, "alderlake"},      {0x9A, 0x9A, 0, 15, "alderlake"},
    {0xB7, 0xB7, 0, 15, "alderlake"},      {0xBA, 0xBA, 0, 15, "alderlake"},
    {0x8F, 0x8F, 0, 15, "sapphirerapids"}, {0xCF, 0xCF, 0, 15, "emeraldrapids"},
    {0xAD, 0xAE, 0, 15, "graniterapids"},
}};

// Arm Ltd. (implementer 0x41) MIDR part numbers.
constexpr std::array<std::pair<uint32_t, std::string_view>, 6> kArmParts = {{
    {0xD08, "cortex-a72"},
    {0xD0B, "cortex-a76"},
    {0xD0C, "neoverse-n1"},
    {0xD40, "neoverse-v1"},
    {0xD49, "neoverse-n2"},
    {0xD4F, "neoverse-v2"},
}};

std::string_view AmdModelName(uint32_t family, uint32_t model) {
  switch (family) {
    case 0x17:
      return model < 0x30 ? "znver1" : "znver2";
    case 0x19:
      // Zen 4: Genoa/Bergamo 0x10-0x1F and 0xA0-0xAF, Raphael/Phoenix 0x60-0x7F.
      return (model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0xAF) ? "znver4"
                                                                                  : "znver3";
    case 0x1A:
      return "znver5";
    default:
      return {};
  }
}

int X86Level(std::string_view soc) {
  constexpr std::array<std::string_view, 4> kLevels = {"x86-64", "x86-64-v2", "x86-64-v3",
                                                       "x86-64-v4"};
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == soc) return static_cast<int>(i);
  }
  return -1;
}

// The identity of this processor; an empty vendor when it cannot be read.
CpuIdentity ReadCpuIdentity() {
  CpuIdentity id;
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return id;
  char vendor[12];
  __builtin_memcpy(vendor, &ebx, 4);
  __builtin_memcpy(vendor + 4, &edx, 4);
  __builtin_memcpy(vendor + 8, &ecx, 4);
  // CpuIdentity holds a view, so point at the literal of a vendor tessera knows.
  for (std::string_view known : {"GenuineIntel", "AuthenticAMD"}) {
    if (std::string_view(vendor, sizeof(vendor)) == known) id.vendor = known;
  }
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return id;
  const uint32_t base_family = (eax >> 8) & 0xF;
  const uint32_t base_model = (eax >> 4) & 0xF;
  id.family = base_family == 0xF ? base_family + ((eax >> 20) & 0xFF) : base_family;
  id.model = base_family == 0x6 || base_family == 0xF ? (((eax >> 16) & 0xF) << 4) | base_model
                                                      : base_model;
  id.stepping = eax & 0xF;
#elif defined(__aarch64__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  uint32_t implementer = 0;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const uint32_t value =
        static_cast<uint32_t>(std::strtoul(line.c_str() + colon + 1, nullptr, 0));
    if (line.rfind("CPU implementer", 0) == 0) implementer = value;
    if (line.rfind("CPU part", 0) == 0 && implementer == 0x41) {
      id.vendor = "arm";
      id.model = value;
      break;
    }
  }
#endif
  return id;
}

}  // namespace

const std::vector<CpuModel>& KnownCpuModels() {
  static const std::vector<CpuModel> models(kCpuModels.begin(), kCpuModels.end());
  return models;
}

const CpuModel* FindCpuModel(std::string_view name) {
  for (const CpuModel& m : KnownCpuModels()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const CpuModel* CpuModelOf(const CpuIdentity& id) {
  std::string_view name;
  if (id.vendor == "GenuineIntel" && id.family == 6) {
    for (const ModelRange& r : kIntelFamily6) {
      if (id.model >= r.first && id.model <= r.last && id.stepping >= r.min_stepping &&
          id.stepping <= r.max_stepping) {
        name = r.name;
      }
    }
  } else if (id.vendor == "AuthenticAMD") {
    name = AmdModelName(id.family, id.model);
  } else if (id.vendor == "arm") {
    for (const auto& [part, part_name] : kArmParts) {
      if (part == id.model) name = part_name;
    }
  }
  return name.empty() ? nullptr : FindCpuModel(name);
}

std::string DetectComputeUnit() {
  const CpuModel* model = CpuModelOf(ReadCpuIdentity());
  if (model == nullptr) return "";
  const int machine = X86Level(DetectSoc());
  if (machine >= 0 && X86Level(model->soc) > machine) return "";
  return std::string(model->name);
}

std::vector<std::string> ProfileNames() {
  return {"native", "ascend910b"};
}

Result<ArchSpec> FindProfile(std::string_view name) {
  ArchSpec spec;
  spec.soc = DetectSoc();
  spec.compute_unit = DetectComputeUnit();
  spec.ub_bytes = 192 << 10;
  spec.l1_bytes = 512 << 10;
  spec.l0a_bytes = 64 << 10;
  spec.l0b_bytes = 64 << 10;
  spec.l0c_bytes = 128 << 10;
  spec.bt_bytes = 1 << 10;
  spec.fb_bytes = 2 << 10;
  spec.alignment = 32;
  spec.task_ration = 2;
  if (name == "native") {
    // One vector core and one AI core per hardware thread. Cube work (Mmad) is compute-bound, so an
    // AIC-only or MIX launch of aic_cores groups needs one AI core per thread to use the machine;
    // MIX groups still pair each AIC with 2 AIVs, which fibers run alongside.
    spec.name = "native";
    // tessera's own CPU-shaped cube: buffers 4x the 2201's (L0A/L0B, L0C) and L1 to hold two
    // stages of 256 x 512 blocks, so the GM -> L1 copies (the GEMM's packing) feed twice the FLOPs
    // per byte (gemm::LargeTiles); they still fit one core's L2 + L3 share.
    spec.l1_bytes = 2 << 20;
    spec.l0a_bytes = 256 << 10;
    spec.l0b_bytes = 256 << 10;
    spec.l0c_bytes = 512 << 10;
    spec.aiv_cores = HardwareThreads();
    spec.aic_cores = spec.aiv_cores;
    spec.emulated = false;
    return spec;
  }
  if (name == "ascend910b") {
    spec.name = "ascend910b";
    spec.aic_cores = 24;
    spec.aiv_cores = 48;
    spec.emulated = true;
    return spec;
  }
  std::string known;
  for (const auto& n : ProfileNames())
    known += (known.empty() ? "" : ", ") + n;
  return NotFound("unknown device profile '" + std::string(name) + "'; available: " + known);
}

}  // namespace tessera::device
