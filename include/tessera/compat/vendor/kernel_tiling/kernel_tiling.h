// The vendor's kernel-side tiling structs (kernel_tiling/kernel_tiling.h): plain structs a kernel
// copies from the tiling bytes in GM, in namespace AscendC::tiling and, for the older names, at
// global scope.
//
//   TCubeTiling tiling;                       // 50 int32_t fields, 200 bytes, all 0
//   CopyTiling(&tiling, tilingGm);            // a kernel reads it word by word or by memcpy
//
// TCubeTiling is tessera's (tessera/tiling/matmul_tiling.h): the same fields in the vendor's order,
// so bytes written by the host (optiling::TCubeTiling::SaveToBuffer, or this struct copied) read
// back field for field.
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/tiling/matmul_tiling.h"

namespace AscendC::tiling {
using ::tessera::tiling::TCubeTiling;
}  // namespace AscendC::tiling

using AscendC::tiling::TCubeTiling;
