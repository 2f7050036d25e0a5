// Ascend C compatibility: lets an existing Ascend C vector, cube or MIX kernel compile against
// tessera.
//
//   #include "tessera/kernel/kernel_operator.h"   // instead of "kernel_operator.h"
//   using namespace AscendC;
//   extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR
//   tiling)
//
// The kernel is then launched with tessera::device::Launch(add_custom, blockDim, stream, ...); a
// cube (`__cube__`) kernel with LaunchConfig{blockDim, KernelType::kAic}, a MIX (`__mix__(1, 2)`)
// kernel with KernelType::kMix (blockDim = groups). The NPU address-space and kernel-kind
// qualifiers expand to nothing; `half` and `bfloat16_t` are tessera's storage types; the kernel API
// lives in namespace AscendC; `if ASCEND_IS_AIC { ... }` / `if ASCEND_IS_AIV { ... }` split a MIX
// kernel's body by core type at run time; QuantMode_t, pipe_t with PIPE_* and TEventID with
// EVENT_ID* are global, as in the vendor's toolchain; QuePosition is TPosition; AscendC::printf,
// PRINTF and DumpTensor print from kernels (buffered per block).
#pragma once

#include <cstdint>

#include "tessera/core/float16.h"
#include "tessera/kernel/kernel.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cube__
#define __vector__
#define __mix__(cube, vec)
#define ASCEND_IS_AIC (::tessera::kernel::IsAic())
#define ASCEND_IS_AIV (::tessera::kernel::IsAiv())
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

using half = tessera::half;
using bfloat16_t = tessera::bfloat16;
using QuantMode_t = tessera::kernel::QuantMode_t;
using pipe_t = tessera::kernel::pipe_t;
using enum tessera::kernel::pipe_t;
using TEventID = tessera::kernel::TEventID;
using enum tessera::kernel::TEventID;

namespace AscendC {
using namespace tessera::kernel;
using QuePosition = TPosition;
// The vendor's kernel printf (buffered per block, see tessera/kernel/print.h).
template <class... Args>
void printf(const char* format, Args... args) {
  ::tessera::kernel::Printf(format, args...);
}
}  // namespace AscendC
#define PRINTF AscendC::printf
