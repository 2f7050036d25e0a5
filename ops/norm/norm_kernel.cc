// Kernels of RmsNorm, AddRmsNorm and LayerNorm: one entry per dtype (the tiling key). Each block
// runs its rows of the elewise operator planned by the tiling function (elewise/op_kernel.h).
#include "../common/row_op_kernel.h"

namespace tessera::ops {
namespace {

namespace ew = elewise;

template <class T>
__global__ __aicore__ void RmsNormEntry(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace,
                                        GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ew::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x, gamma, y};
  ew::op_kernel::RunOpBlock<typename ew::fused::CompiledRmsNorm<T>::KernelOp>(t, gm, workspace);
}

template <class T>
__global__ __aicore__ void AddRmsNormEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR gamma, GM_ADDR y,
                                           GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ew::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x1, x2, gamma, y, x};
  ew::op_kernel::RunOpBlock<typename ew::fused::CompiledAddRmsNorm<T>::KernelOp>(t, gm, workspace);
}

template <class T>
__global__ __aicore__ void LayerNormEntry(GM_ADDR x, GM_ADDR gamma, GM_ADDR beta, GM_ADDR y,
                                          GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ew::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x, gamma, beta, y};
  ew::op_kernel::RunOpBlock<typename ew::fused::CompiledLayerNorm<T>::KernelOp>(t, gm, workspace);
}

TESSERA_ROW_OP_ENTRIES(rms_norm, RmsNormEntry)
TESSERA_ROW_OP_ENTRIES(add_rms_norm, AddRmsNormEntry)
TESSERA_ROW_OP_ENTRIES(layer_norm, LayerNormEntry)

}  // namespace
}  // namespace tessera::ops
