// Kernel entries of the built-in elementwise ops: each binds the host's elewise plan (the
// ElewiseTilingData the tiling function stored) to its GM addresses and runs its block's share
// with the compiled back end (register-fused code for this kernel library's SoC; the host plans
// with the interpreter's BlockBuilder, whose plan and tiling data are the same).
#pragma once

#include <cstdint>

#include "elementwise_compute.h"
#include "tessera/elewise/compiled.h"
#include "tessera/elewise/op_kernel.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

template <class Compute>
using CompiledElementwiseKernel =
    elewise::grid::KernelBuilder<elewise::block::CompiledBlockBuilder<Compute>>;

template <class Compute>
__global__ __aicore__ void ElementwiseUnaryEntry(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                 GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(elewise::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x, y};
  elewise::op_kernel::RunOpBlock<CompiledElementwiseKernel<Compute>>(t, gm, workspace);
}

template <class Compute>
__global__ __aicore__ void ElementwiseBinaryEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR y,
                                                  GM_ADDR workspace, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(elewise::op_kernel::ElewiseTilingData, t, tiling);
  uint8_t* const gm[] = {x1, x2, y};
  elewise::op_kernel::RunOpBlock<CompiledElementwiseKernel<Compute>>(t, gm, workspace);
}

}  // namespace tessera::ops
