// Kernel of Softmax: one entry per dtype; each block runs its rows of the elewise operator
// planned by the tiling function.
#include "../common/row_op_kernel.h"

namespace tessera::ops {
namespace {

namespace ew = elewise;

template <class T>
__global__ __aicore__ void SoftmaxEntry(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(ew::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x, y};
  ew::op_kernel::RunOpBlock<typename ew::fused::CompiledSoftmax<T>::KernelOp>(t, gm, workspace);
}

TESSERA_ROW_OP_ENTRIES(softmax, SoftmaxEntry)

}  // namespace
}  // namespace tessera::ops
