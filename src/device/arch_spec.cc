#include "tessera/device/arch_spec.h"

#include <sched.h>

#include <thread>

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

std::vector<std::string> ProfileNames() {
  return {"native", "ascend910b"};
}

Result<ArchSpec> FindProfile(std::string_view name) {
  ArchSpec spec;
  spec.soc = DetectSoc();
  spec.ub_bytes = 192 << 10;
  spec.l1_bytes = 512 << 10;
  spec.l0a_bytes = 64 << 10;
  spec.l0b_bytes = 64 << 10;
  spec.l0c_bytes = 128 << 10;
  spec.alignment = 32;
  spec.task_ration = 2;
  if (name == "native") {
    // One vector core per hardware thread; AI cores paired 1:2 with them so MIX kernels written for
    // an NPU run unchanged.
    spec.name = "native";
    spec.aiv_cores = HardwareThreads();
    spec.aic_cores = (spec.aiv_cores + 1) / 2;
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
