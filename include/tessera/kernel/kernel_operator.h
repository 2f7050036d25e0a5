// Ascend C compatibility: lets an existing Ascend C vector kernel compile against tessera.
//
//   #include "tessera/kernel/kernel_operator.h"   // instead of "kernel_operator.h"
//   using namespace AscendC;
//   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR
//   tiling)
//
// The kernel is then launched with tessera::device::Launch(add_custom, blockDim, stream, ...). The
// NPU address-space qualifiers expand to nothing; `half` and `bfloat16_t` are tessera's storage
// types; the kernel API lives in namespace AscendC.
#pragma once

#include <cstdint>

#include "tessera/core/float16.h"
#include "tessera/kernel/kernel.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

using half = tessera::half;
using bfloat16_t = tessera::bfloat16;

namespace AscendC {
using namespace tessera::kernel;
}  // namespace AscendC
