// Block layer: one kernel block's share of the work, run micro-tile by micro-tile.
//
// BlockBuilder<Compute, Policy> lowers the Compute at compile time; on the host it sizes the
// micro-tile from the UB capacity and the program's live buffers (registers, RA accumulators)
// and places spilled temporaries (plan, once per problem), then binds problem and plan into the
// block params (to_params); on the device Run(params, begin, count) walks units
// [begin, begin + count) of the problem (elements, rows or columns).
#pragma once

#include <cstdint>
#include <utility>

#include "tessera/core/status.h"
#include "tessera/elewise/detail/engine.h"
#include "tessera/elewise/detail/lower.h"
#include "tessera/elewise/detail/problem.h"
#include "tessera/elewise/policy.h"

namespace tessera::elewise::block {

template <class Compute_, class Policy_ = policy::DoubleBuffer>
struct BlockBuilder {
  using Compute = Compute_;
  using Policy = Policy_;

  static constexpr tile::ProgramView Program() { return expr::ProgramFor<Compute>::View(); }

  struct Arguments {
    Problem problem;
    uint64_t ub_bytes = 0;  // UB per block of the active profile
  };
  using Params = BlockParams;

  // The host's one planning step: micro-tile size and spill placement for `args`. OutOfRange when
  // the program's live buffers do not fit the UB (says how many).
  static Result<TilePlan> plan(const Arguments& args) {
    return PlanTiles(Program(), args.problem, args.ub_bytes, Policy::MaxTileElems);
  }

  // OK when the program's live buffers fit the UB; otherwise says how many do not fit.
  static Status can_implement(const Arguments& args) { return plan(args).status(); }

  // Global workspace for spills that do not fit in UB, for `block_num` blocks.
  static uint64_t get_workspace_size(const TilePlan& plan, uint32_t block_num) {
    return plan.workspace_bytes_per_core * block_num;
  }

  // Binds `problem` and a plan of it (from plan()) to the block's params; plans nothing.
  // `workspace` holds get_workspace_size bytes.
  static Params to_params(Problem problem, const TilePlan& plan, void* workspace) {
    Params p;
    p.program = Program();
    p.operands = std::move(problem.operands);
    p.attr_bits = std::move(problem.attr_bits);
    p.traversal = problem.traversal;
    p.rows = problem.rows;
    p.cols = problem.cols;
    p.row_rank = problem.row_rank;
    for (uint32_t k = 0; k < problem.row_rank; ++k)
      p.row_dims[k] = problem.row_dims[k];
    p.tile_elems = plan.tile_elems;
    p.prefetch_tiles = static_cast<uint32_t>(Policy::Stages - 1);
    p.stream_outputs = problem.output_bytes >= Policy::StreamThresholdBytes;
    p.spill_in_ub = plan.spill_in_ub;
    p.spill_elems = plan.spill_elems;
    p.workspace = workspace;
    p.workspace_bytes_per_core = plan.workspace_bytes_per_core;
    return p;
  }

  // Device side: units [begin, begin + count) on the calling block.
  static void Run(const Params& params, int64_t begin, int64_t count) {
    RunBlock(params, begin, count);
  }
};

}  // namespace tessera::elewise::block
