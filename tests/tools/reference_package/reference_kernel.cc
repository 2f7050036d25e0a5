// The kernel of the reference test package: y = x1 * alpha + x2, computed in float for the
// floating types (rounded once to the output type) and in int64 for int32; one entry per dtype
// (tiling keys 0 float32, 1 float16, 2 bfloat16, 3 int32), shared by the three ops. Element loops
// keep the test package short.
#include <algorithm>

#include "reference_tiling.h"
#include "tessera/core/float16.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"

namespace reference_package {

using namespace AscendC;

template <class T>
__global__ __aicore__ void SumKernel(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR /*workspace*/,
                                     GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(RefSumTilingData, t, tiling);
  const int64_t begin = std::min<int64_t>(t.total, t.perCore * GetBlockIdx());
  const int64_t end = std::min<int64_t>(t.total, begin + t.perCore);
  const T* a = reinterpret_cast<const T*>(x1);
  const T* b = reinterpret_cast<const T*>(x2);
  T* out = reinterpret_cast<T*>(y);
  for (int64_t i = begin; i < end; ++i) {
    if constexpr (std::is_same_v<T, int32_t>) {
      out[i] = static_cast<int32_t>(int64_t{a[i]} * t.alpha + b[i]);
    } else {
      out[i] = T(static_cast<float>(a[i]) * static_cast<float>(t.alpha) + static_cast<float>(b[i]));
    }
  }
}

TESSERA_KERNEL_ENTRY(ref_sum, 0, AIV, SumKernel<float>)
TESSERA_KERNEL_ENTRY(ref_sum, 1, AIV, SumKernel<tessera::half>)
TESSERA_KERNEL_ENTRY(ref_sum, 2, AIV, SumKernel<tessera::bfloat16>)
TESSERA_KERNEL_ENTRY(ref_sum, 3, AIV, SumKernel<int32_t>)
TESSERA_KERNEL_ENTRY(ref_wrong_sum, 0, AIV, SumKernel<float>)
TESSERA_KERNEL_ENTRY(ref_wrong_sum, 1, AIV, SumKernel<tessera::half>)
TESSERA_KERNEL_ENTRY(ref_wrong_sum, 2, AIV, SumKernel<tessera::bfloat16>)
TESSERA_KERNEL_ENTRY(ref_wrong_sum, 3, AIV, SumKernel<int32_t>)
TESSERA_KERNEL_ENTRY(ref_no_ref, 0, AIV, SumKernel<float>)
TESSERA_KERNEL_ENTRY(ref_no_ref, 1, AIV, SumKernel<tessera::half>)
TESSERA_KERNEL_ENTRY(ref_no_ref, 2, AIV, SumKernel<tessera::bfloat16>)
TESSERA_KERNEL_ENTRY(ref_no_ref, 3, AIV, SumKernel<int32_t>)

}  // namespace reference_package

TESSERA_KERNEL_LIBRARY()
