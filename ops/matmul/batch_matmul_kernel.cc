// Kernels of BatchMatMul(x1, x2) -> y: a cube launch over the C blocks of every batch (numpy
// broadcasting of the batch dims travels in the tiling data). One entry per (dtype, adj_x1,
// adj_x2, tiles): int8 has only the 2201 tiles.
#include "matmul_kernel_common.h"

namespace tessera::ops {
namespace {

template <class T, bool kTA, bool kTB, bool kLarge>
__global__ __aicore__ void BatchMatMulEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR y,
                                            GM_ADDR /*workspace*/, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunBasic<T, kTA, kTB, kLarge>(t, x1, x2, y);
}

#define TESSERA_BMM_ENTRY(T, TA, TB, L)                                                       \
  TESSERA_KERNEL_ENTRY(batch_mat_mul, MatmulKey(DataTypeOf<T>::value, TA, TB, false, L), AIC, \
                       BatchMatMulEntry<T, TA, TB, L>)
#define TESSERA_BMM_TYPE(T, L)          \
  TESSERA_BMM_ENTRY(T, false, false, L) \
  TESSERA_BMM_ENTRY(T, false, true, L)  \
  TESSERA_BMM_ENTRY(T, true, false, L)  \
  TESSERA_BMM_ENTRY(T, true, true, L)

TESSERA_BMM_TYPE(float, false)
TESSERA_BMM_TYPE(half, false)
TESSERA_BMM_TYPE(bfloat16_t, false)
TESSERA_BMM_TYPE(int8_t, false)
TESSERA_BMM_TYPE(float, true)
TESSERA_BMM_TYPE(half, true)
TESSERA_BMM_TYPE(bfloat16_t, true)

}  // namespace
}  // namespace tessera::ops
