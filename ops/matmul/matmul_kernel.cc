// Kernels of MatMul(x1, x2, bias?) -> y: without bias a cube launch (BasicMatmul: Fixpipe writes
// y, converting on the way); with bias a MIX launch (MatmulEpilogue: the AIVs add the bias).
// One entry per (dtype, transpose_x1, transpose_x2, bias, tiles): int8 has only the 2201 tiles.
#include "matmul_kernel_common.h"

namespace tessera::ops {
namespace {

template <class T, bool kTA, bool kTB, bool kLarge>
__global__ __aicore__ void MatMulEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR /*bias*/, GM_ADDR y,
                                       GM_ADDR /*workspace*/, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunBasic<T, kTA, kTB, kLarge>(t, x1, x2, y);
}

template <class T, bool kTA, bool kTB, bool kLarge>
__global__ __aicore__ void MatMulBiasEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y,
                                           GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunMix<T, kTA, kTB, kLarge>(t, x1, x2, bias, nullptr, y, workspace);
}

#define TESSERA_MATMUL_ENTRIES(T, TA, TB, L)                                            \
  TESSERA_KERNEL_ENTRY(mat_mul, MatmulKey(DataTypeOf<T>::value, TA, TB, false, L), AIC, \
                       MatMulEntry<T, TA, TB, L>)                                       \
  TESSERA_KERNEL_ENTRY(mat_mul, MatmulKey(DataTypeOf<T>::value, TA, TB, true, L), MIX,  \
                       MatMulBiasEntry<T, TA, TB, L>)
#define TESSERA_MATMUL_TYPE(T, L)            \
  TESSERA_MATMUL_ENTRIES(T, false, false, L) \
  TESSERA_MATMUL_ENTRIES(T, false, true, L)  \
  TESSERA_MATMUL_ENTRIES(T, true, false, L)  \
  TESSERA_MATMUL_ENTRIES(T, true, true, L)

TESSERA_MATMUL_TYPE(float, false)
TESSERA_MATMUL_TYPE(half, false)
TESSERA_MATMUL_TYPE(bfloat16_t, false)
TESSERA_MATMUL_TYPE(int8_t, false)
TESSERA_MATMUL_TYPE(float, true)
TESSERA_MATMUL_TYPE(half, true)
TESSERA_MATMUL_TYPE(bfloat16_t, true)

}  // namespace
}  // namespace tessera::ops
