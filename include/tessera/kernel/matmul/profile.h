// The AI-core sizes and core counts of a device profile, in a form C++17 host code can include
// (device/arch_spec.h is C++20): the vendor's platform query (platform_ascendc.h) reads them.
#pragma once

#include <cstdint>

namespace tessera::kernel {

struct AiCoreProfile {
  uint32_t aic_cores = 0;
  uint32_t aiv_cores = 0;
  uint64_t ub_bytes = 0;
  uint64_t l1_bytes = 0;
  uint64_t l0a_bytes = 0;
  uint64_t l0b_bytes = 0;
  uint64_t l0c_bytes = 0;
  uint64_t bt_bytes = 0;  // bias table
  uint64_t fb_bytes = 0;  // fixpipe buffer
};

// tessera's ascend910b profile (the 2201 AI core: 24 AIC, 48 AIV, ...).
AiCoreProfile Ascend910bProfile();
// The active profile (its cube buffers differ between native and ascend910b).
AiCoreProfile CurrentProfile();

}  // namespace tessera::kernel
