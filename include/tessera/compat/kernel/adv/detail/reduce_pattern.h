// AscendC::ReducePattern, shared by the kernel-side APIs (NormalizeConfig) and the host tiling
// queries (GetReduce*MaxMinTmpSize): AR reduces the inner axis of a 2-D shape, RA the outer.
#pragma once

#include <cstdint>

namespace AscendC {
enum class ReducePattern : uint32_t { AR = 0, RA = 1 };
}  // namespace AscendC
