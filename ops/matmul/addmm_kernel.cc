// Kernels of Addmm(self, mat1, mat2) -> y = beta * self + alpha * mat1 mat2 (self broadcast to
// [M, N]) and MatMulAct(x1, x2, bias?) -> y = act(x1 x2 + bias): MIX launches whose AIVs run the
// epilogue. One entry per (dtype, tiles): int8 has only the 2201 tiles.
#include "matmul_kernel_common.h"

namespace tessera::ops {
namespace {

template <class T, bool kLarge>
__global__ __aicore__ void AddmmEntry(GM_ADDR self, GM_ADDR mat1, GM_ADDR mat2, GM_ADDR y,
                                      GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunMix<T, false, false, kLarge>(t, mat1, mat2, nullptr, self, y, workspace);
}

template <class T, bool kLarge>
__global__ __aicore__ void MatMulActEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR y,
                                          GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulTilingData, t, tiling);
  matmul::RunMix<T, false, false, kLarge>(t, x1, x2, bias, nullptr, y, workspace);
}

#define TESSERA_ADDMM_TYPE(T, L)                                                                 \
  TESSERA_KERNEL_ENTRY(addmm, MatmulKey(DataTypeOf<T>::value, false, false, true, L), MIX,       \
                       AddmmEntry<T, L>)                                                         \
  TESSERA_KERNEL_ENTRY(mat_mul_act, MatmulKey(DataTypeOf<T>::value, false, false, true, L), MIX, \
                       MatMulActEntry<T, L>)

TESSERA_ADDMM_TYPE(float, false)
TESSERA_ADDMM_TYPE(half, false)
TESSERA_ADDMM_TYPE(bfloat16_t, false)
TESSERA_ADDMM_TYPE(int8_t, false)
TESSERA_ADDMM_TYPE(float, true)
TESSERA_ADDMM_TYPE(half, true)
TESSERA_ADDMM_TYPE(bfloat16_t, true)

}  // namespace
}  // namespace tessera::ops
