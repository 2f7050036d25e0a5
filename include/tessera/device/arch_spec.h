// ArchSpec: what a device looks like to kernels - core counts, on-chip buffer sizes, alignment,
// SoC.
//
// Profiles: "native" uses one logical vector core per hardware thread (fastest); "ascend910b"
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
  bool emulated = false;     // true when logical cores outnumber hardware threads by design
  uint32_t aic_cores = 0;    // logical AI (cube) cores
  uint32_t aiv_cores = 0;    // logical vector cores
  uint32_t task_ration = 2;  // vector cores per AI core in a MIX group (1:N)
  size_t ub_bytes = 0;       // Unified Buffer per vector core
  size_t l1_bytes = 0;       // L1 per AI core
  size_t l0a_bytes = 0;
  size_t l0b_bytes = 0;
  size_t l0c_bytes = 0;
  uint32_t alignment = 32;  // bytes; DataCopy granularity
};

// Names of the built-in profiles, "native" first.
std::vector<std::string> ProfileNames();
// The profile called `name` on this machine (native core counts depend on the machine).
Result<ArchSpec> FindProfile(std::string_view name);

// The instruction-set level of this CPU, e.g. "x86-64-v4", "x86-64-v3", "x86-64-v2", "x86-64",
// "armv8-a".
std::string DetectSoc();
// Hardware threads this process may run on (its affinity mask), at least 1.
uint32_t HardwareThreads();

}  // namespace tessera::device
