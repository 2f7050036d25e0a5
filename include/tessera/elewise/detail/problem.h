// Host-side planning shared by the layers: binding run-time arguments to a tile program (shape,
// dtype and broadcast checks) and sizing micro-tiles and workspace. Compiled once in src/elewise.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/elewise/arguments.h"
#include "tessera/elewise/detail/engine.h"
#include "tessera/elewise/detail/program.h"

namespace tessera::elewise {

// The arguments of one call as the engine sees them: a 2-D view and one Operand per parameter.
struct Problem {
  block::Traversal traversal = block::Traversal::kFlat;
  int64_t rows = 1;  // product of the leading dims of the broadcast shape
  int64_t cols = 1;  // its last dim
  // kRows problems of programs without reductions whose rows are not evenly strided (a middle
  // axis broadcast, a strided view): the rows' N-D shape, as block::BlockParams::row_dims.
  uint32_t row_rank = 0;
  int64_t row_dims[block::kMaxRowDims] = {};
  block::InlineVector<block::Operand, block::kInlineOperands> operands;
  block::InlineVector<uint32_t, block::kInlineAttrs> attr_bits;
  uint64_t output_bytes = 0;  // bytes the launch writes to tensors

  // Work units the kernel schedule splits: elements (flat), rows (AR) or columns (RA).
  int64_t Units() const { return traversal == block::Traversal::kRows ? rows : cols; }
};

// Checks `args` against the program and resolves it. Errors (InvalidArgument unless noted):
// parameter count, tensor vs scalar, dtype, null data, empty (rank 0) or zero-sized shapes,
// shapes that do not broadcast, outputs not of the broadcast (or reduced) shape, outputs that
// are not dense, strides that do not match the rank, a missing attribute. Programs without
// reductions take every numpy broadcast and strided inputs: the dims are coalesced (size-1 dims
// dropped, neighbours every tensor walks alike merged), one dim left is a flat problem, more
// are rows of the innermost. Programs with reductions take broadcasts along the last axis or
// all leading axes and dense tensors only (else Unimplemented).
Result<Problem> ResolveProblem(const tile::ProgramView& program, const Arguments& args);

// Micro-tile size and spill placement for one block.
struct TilePlan {
  uint32_t tile_elems = 0;
  bool spill_in_ub = true;
  uint64_t spill_elems = 0;
  uint64_t workspace_bytes_per_core = 0;
};

// tile = min(max_tile, UB / (4 bytes x live buffers)) rounded down to 64 lanes. Spilled
// temporaries (a row for AR, rows x tile for RA) go to UB when they fit beside the registers,
// else to a global workspace. OutOfRange when not even a 64-lane tile fits.
Result<TilePlan> PlanTiles(const tile::ProgramView& program, const Problem& problem,
                           uint64_t ub_bytes, uint32_t max_tile);

}  // namespace tessera::elewise
