// Kernels of the linked test package: y = alpha * x1 + x2 over each block's slice (Add passes
// alpha = 1). Element loops keep the test package short.
#include <algorithm>

#include "linked_add_tiling.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/kernel/kernel_entry.h"

namespace linked_add {

using namespace AscendC;

__global__ __aicore__ void AxpyKernel(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR workspace,
                                      GM_ADDR tiling) {
  (void)workspace;
  GET_TILING_DATA_WITH_STRUCT(LinkedAddTilingData, t, tiling);
  const int64_t begin = std::min<int64_t>(t.total, t.perCore * GetBlockIdx());
  const int64_t end = std::min<int64_t>(t.total, begin + t.perCore);
  const auto* a = reinterpret_cast<const float*>(x1);
  const auto* b = reinterpret_cast<const float*>(x2);
  auto* c = reinterpret_cast<float*>(y);
  for (int64_t i = begin; i < end; ++i)
    c[i] = t.alpha * a[i] + b[i];
}

TESSERA_KERNEL_ENTRY(add, 0, AIV, AxpyKernel)
TESSERA_KERNEL_ENTRY(scaled_add, 0, AIV, AxpyKernel)

}  // namespace linked_add

TESSERA_KERNEL_LIBRARY()
