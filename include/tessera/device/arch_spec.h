// ArchSpec: what a device looks like to kernels - core counts, on-chip buffer sizes, alignment,
// SoC.
//
// Profiles: "native" uses one logical vector core and one AI core per hardware thread (fastest);
// "ascend910b"
// emulates an NPU with 24 AI cores (AIC) and 48 vector cores (AIV) at 1:2 and its buffer sizes, for
// developing kernels meant for real NPUs. The active profile is process-wide: TESSERA_PROFILE at
// start-up, or SetProfile().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::device {

struct ArchSpec {
  std::string name;          // profile name: "native", "ascend910b", ...
  std::string soc;           // ISA level kernels are built for: "x86-64-v4", "armv8-a", ...
  std::string compute_unit;  // exact CPU model ("znver3", "icelake-server"); empty when unknown
  bool emulated = false;     // true when logical cores outnumber hardware threads by design
  uint32_t aic_cores = 0;    // logical AI (cube) cores
  uint32_t aiv_cores = 0;    // logical vector cores
  uint32_t task_ration = 2;  // vector cores per AI core in a MIX group (1:N)
  size_t ub_bytes = 0;       // Unified Buffer per vector core
  size_t l1_bytes = 0;       // L1 per AI core
  size_t l0a_bytes = 0;
  size_t l0b_bytes = 0;
  size_t l0c_bytes = 0;
  size_t bt_bytes = 0;      // bias table per AI core
  size_t fb_bytes = 0;      // fixpipe buffer per AI core
  uint32_t alignment = 32;  // bytes; DataCopy granularity
};

// Names of the built-in profiles, "native" first.
std::vector<std::string> ProfileNames();
// The profile called `name` on this machine (native core counts depend on the machine).
Result<ArchSpec> FindProfile(std::string_view name);

// The instruction-set level of this CPU, e.g. "x86-64-v4", "x86-64-v3", "x86-64-v2", "x86-64",
// "armv8-a".
std::string DetectSoc();
// A CPU model a package can be built for (a compute unit): its -march/-mcpu name and the ISA level
// it implements.
struct CpuModel {
  std::string_view name;  // "znver3", "icelake-server", "neoverse-n1", ...
  std::string_view soc;   // "x86-64-v3", ...
};
// Every CPU model tessera knows, grouped by vendor.
const std::vector<CpuModel>& KnownCpuModels();
// The model in KnownCpuModels() called `name`, or nullptr.
const CpuModel* FindCpuModel(std::string_view name);

// What CPUID (x86) or MIDR (arm) identifies a processor by.
struct CpuIdentity {
  std::string_view vendor;  // "GenuineIntel", "AuthenticAMD", "arm"
  uint32_t family = 0;      // x86: display family (base + extended)
  uint32_t model = 0;       // x86: display model; arm: MIDR part number
  uint32_t stepping = 0;
};
// The CPU model of `id`, or nullptr for processors tessera does not know. Pure; tested with fake
// identities.
const CpuModel* CpuModelOf(const CpuIdentity& id);
// This machine's compute unit: the model of its processor, reported only when the machine's ISA
// level (DetectSoc) reaches the model's - a hypervisor that hides AVX-512 of a znver4 host yields
// "" so a znver4 binary is never chosen where it would fault. Empty when unknown.
std::string DetectComputeUnit();

// Hardware threads this process may run on (its affinity mask), at least 1.
uint32_t HardwareThreads();

}  // namespace tessera::device
