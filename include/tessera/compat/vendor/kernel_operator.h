// Ascend C compatibility: lets an existing Ascend C vector, cube or MIX kernel compile against
// tessera.
//
//   #include "kernel_operator.h"   // with -I include/tessera/compat/vendor
//   (tessera::compat_kernel) using namespace AscendC; extern "C" __global__ __aicore__ void
//   add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
//
// A .asc source built by tessera-asc launches it with `add_custom<<<blockDim, nullptr,
// stream>>>(...)`; C++ code calls tessera::device::Launch(add_custom, blockDim, stream, ...); a
// cube (`__cube__`) kernel with LaunchConfig{blockDim, KernelType::kAic}, a MIX (`__mix__(1, 2)`)
// kernel with KernelType::kMix (blockDim = groups). The NPU address-space and kernel-kind
// qualifiers expand to nothing; `half` and `bfloat16_t` are tessera's storage types; the kernel API
// lives in namespace AscendC; `if ASCEND_IS_AIC { ... }` / `if ASCEND_IS_AIV { ... }` split a MIX
// kernel's body by core type at run time; QuantMode_t, pipe_t with PIPE_* and TEventID with
// EVENT_ID* are global, as in the vendor's toolchain; QuePosition is TPosition; AscendC::printf,
// PRINTF and DumpTensor print from kernels (buffered per block); block_idx, block_num,
// ascendc_assert, ASCENDC_ASSERT, KERNEL_LOG, GetSystemCycle, DivCeil:
// tessera/compat/kernel/basic.h.
#pragma once

#include <cassert>  // kernels call assert() without including it, as the vendor header allows
#include <cstdint>
#include <type_traits>

#include "tessera/compat/kernel/adv_api.h"
#include "tessera/compat/kernel/basic.h"
#include "tessera/compat/kernel/layout.h"
#include "tessera/compat/kernel/list_tensor.h"
#include "tessera/compat/kernel/std.h"
#include "tessera/compat/kernel/sync.h"
#include "tessera/compat/kernel/tiling.h"
#include "tessera/core/float16.h"
#include "tessera/kernel/kernel.h"

#define __global__
#define __aicore__
#define __gm__
#define __ubuf__
#define __cube__
#define __vector__
#define __mix__(cube, vec)
#define __kfc_workspace__
#define ASCEND_IS_AIC (::tessera::kernel::IsAic())
#define ASCEND_IS_AIV (::tessera::kernel::IsAiv())
// Branch-prediction hints the vendor's headers define for kernels.
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef GM_ADDR
#define GM_ADDR uint8_t*
#endif

using half = tessera::half;
using bfloat16_t = tessera::bfloat16;
using QuantMode_t = tessera::kernel::QuantMode_t;
using pipe_t = tessera::kernel::pipe_t;
using tessera::kernel::PIPE_ALL;
using tessera::kernel::PIPE_FIX;
using tessera::kernel::PIPE_M;
using tessera::kernel::PIPE_MTE1;
using tessera::kernel::PIPE_MTE2;
using tessera::kernel::PIPE_MTE3;
using tessera::kernel::PIPE_S;
using tessera::kernel::PIPE_V;
using TEventID = tessera::kernel::TEventID;
using tessera::kernel::EVENT_ID0;
using tessera::kernel::EVENT_ID1;
using tessera::kernel::EVENT_ID2;
using tessera::kernel::EVENT_ID3;
using tessera::kernel::EVENT_ID4;
using tessera::kernel::EVENT_ID5;
using tessera::kernel::EVENT_ID6;
using tessera::kernel::EVENT_ID7;
// The vendor declares GetTPipePtr at global scope; samples call it unqualified.
using tessera::kernel::GetTPipePtr;
// The vendor toolchain's scalar min / max builtins, which kernels call unqualified (two operands
// of one arithmetic type). A source that also says `using namespace std` must qualify std::min.
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
constexpr T min(T a, T b) {
  return b < a ? b : a;
}
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
constexpr T max(T a, T b) {
  return a < b ? b : a;
}

namespace AscendC {
using namespace tessera::kernel;
using QuePosition = TPosition;
// The vendor's compile-time type choice (std::conditional under its own name).
template <bool condition, class IfTrue, class IfFalse>
struct Conditional {
  using type = std::conditional_t<condition, IfTrue, IfFalse>;
};
// The vendor's kernel printf (buffered per block, see tessera/kernel/print.h).
template <class... Args>
void printf(const char* format, Args... args) {
  ::tessera::kernel::Printf(format, args...);
}
}  // namespace AscendC
#define PRINTF AscendC::printf
