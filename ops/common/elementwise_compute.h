// The built-in elementwise ops (unary, scalar, binary, Cast) as elewise Computes: what the op
// sources (tiling) and kernel sources (entries) share, so both plan and run the same program.
#pragma once

#include <cstdint>

#include "op_keys.h"
#include "tessera/core/float16.h"
#include "tessera/elewise/block.h"
#include "tessera/elewise/expr.h"
#include "tessera/elewise/grid.h"

namespace tessera::ops {

// The kernel every built-in elementwise op runs: the Compute over the default pipeline and the
// uniform split of elements (or rows, for broadcasts and strided inputs).
template <class Compute>
using ElementwiseKernel = elewise::grid::KernelBuilder<elewise::block::BlockBuilder<Compute>>;

// DataType of an element type of the built-in ops (float, half, bfloat16, int32_t).
template <class T>
inline constexpr DataType kDtypeOf = elewise::expr::DataTypeOf<T>();

}  // namespace tessera::ops
