// Kernels of BatchMatMul(x1, x2) -> y: a cube launch over the C blocks of every batch (numpy
// broadcasting of the batch dims travels in the tiling data). One entry per (dtype, adj_x1,
// adj_x2).
#include "matmul_kernel_common.h"

namespace tessera::ops {
namespace {

template <class T, bool kTA, bool kTB>
__global__ __aicore__ void BatchMatMulEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR y,
                                            GM_ADDR /*workspace*/, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunBasic<T, kTA, kTB>(t, x1, x2, y);
}

#define TESSERA_BMM_ENTRY(T, TA, TB)                                                       \
  TESSERA_KERNEL_ENTRY(batch_mat_mul, MatmulKey(DataTypeOf<T>::value, TA, TB, false), AIC, \
                       BatchMatMulEntry<T, TA, TB>)
#define TESSERA_BMM_TYPE(T)          \
  TESSERA_BMM_ENTRY(T, false, false) \
  TESSERA_BMM_ENTRY(T, false, true)  \
  TESSERA_BMM_ENTRY(T, true, false)  \
  TESSERA_BMM_ENTRY(T, true, true)

TESSERA_BMM_TYPE(float)
TESSERA_BMM_TYPE(half)
TESSERA_BMM_TYPE(bfloat16_t)
TESSERA_BMM_TYPE(int8_t)

}  // namespace
}  // namespace tessera::ops
