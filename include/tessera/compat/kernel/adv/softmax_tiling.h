// The tiling structs the vendor's softmax-family kernels read (kernel_tiling's SoftMaxTiling and
// LogSoftMaxTiling), as plain structs: AscendC::tiling::SoftMaxTiling, also visible as the global
// SoftMaxTiling a vendor tiling struct embeds. tessera's softmax needs only the shape, so the
// kernels read SoftMaxShapeInfo first and fall back to srcM / srcK here; the host's
// SoftMaxTilingFunc (tiling/activation/softmax_tiling.h) fills every field consistently.
#pragma once

#include <cstdint>

namespace AscendC::tiling {

struct SoftMaxTiling {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

struct LogSoftMaxTiling : SoftMaxTiling {};

}  // namespace AscendC::tiling

using SoftMaxTiling = AscendC::tiling::SoftMaxTiling;
using LogSoftMaxTiling = AscendC::tiling::LogSoftMaxTiling;
