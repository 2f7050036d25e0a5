// Kernels of the simplified-key test package: entry 0 computes y = x * alpha, entry 1
// y = x + alpha (element loops keep the test package short).
#include <algorithm>

#include "keymode_tiling.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/kernel/kernel_entry.h"

namespace keymode_package {

using namespace AscendC;

template <int kMode>
__global__ __aicore__ void ScaleKernel(GM_ADDR x, GM_ADDR y, GM_ADDR /*workspace*/,
                                       GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(KeyModeTilingData, t, tiling);
  const int64_t begin = std::min<int64_t>(t.total, t.perCore * GetBlockIdx());
  const int64_t end = std::min<int64_t>(t.total, begin + t.perCore);
  GlobalTensor<float> in, out;
  in.SetGlobalBuffer(reinterpret_cast<float*>(x) + begin, static_cast<uint64_t>(end - begin));
  out.SetGlobalBuffer(reinterpret_cast<float*>(y) + begin, static_cast<uint64_t>(end - begin));
  for (int64_t i = 0; i < end - begin; ++i) {
    const float v = in.GetValue(i);
    out.SetValue(i, kMode == 0 ? v * t.alpha : v + t.alpha);
  }
}

TESSERA_KERNEL_ENTRY(scale_mode, 0, AIV, ScaleKernel<0>)
TESSERA_KERNEL_ENTRY(scale_mode, 1, AIV, ScaleKernel<1>)
TESSERA_KERNEL_ENTRY(scale_mode_fn, 0, AIV, ScaleKernel<0>)
TESSERA_KERNEL_ENTRY(scale_mode_fn, 1, AIV, ScaleKernel<1>)

}  // namespace keymode_package

TESSERA_KERNEL_LIBRARY()
