// Running an elewise KernelOp as the kernel of a runtime op (an operator package entry).
//
// The two halves of DeviceAdapter::initialize + run, split across the runtime's two stages:
//   host   MakeOpTiling<KernelOp>(args, gm_count, ub_bytes, cores): the op's tiling function
//          describes its tensors by shape (no addresses yet), gets the resolved problem, the
//          schedule's config, the block dim and the workspace size, and stores them in an
//          ElewiseTilingData.
//   device RunOpBlock<KernelOp>(tiling, gm, workspace): the kernel entry binds the planned
//          problem and tile plan to the GM addresses (inputs then outputs) - nothing is planned
//          again - and runs this block's share (Schedule::Run for the current block).
//
// Each tensor parameter names the GM address it lives at (`arg`) and an element offset from it,
// so one op tensor can feed several PlaceHolders (e.g. SwiGLU's two halves of x).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "tessera/core/status.h"
#include "tessera/elewise/arguments.h"
#include "tessera/elewise/detail/problem.h"
#include "tessera/elewise/grid.h"
#include "tessera/tiling/tiling_data.h"

namespace tessera::elewise::op_kernel {

// Limits of the fixed-size tiling struct.
inline constexpr int kMaxOperands = 16;
inline constexpr int kMaxAttrs = 8;
inline constexpr int kScheduleWords = 8;  // the schedule's Config, at most 64 bytes

BEGIN_TILING_DATA_DEF(ElewiseTilingData)
TILING_DATA_FIELD_DEF(bool, empty)  // every output is empty: the kernel has nothing to do
TILING_DATA_FIELD_DEF(int64_t, traversal)
TILING_DATA_FIELD_DEF(int64_t, rows)
TILING_DATA_FIELD_DEF(int64_t, cols)
TILING_DATA_FIELD_DEF(int64_t, rowRank)  // rows as an N-D index (Problem::row_rank)
TILING_DATA_FIELD_DEF_ARR(int64_t, block::kMaxRowDims, rowDims)
TILING_DATA_FIELD_DEF(int64_t, outputBytes)
TILING_DATA_FIELD_DEF(int64_t, tileElems)  // the host's TilePlan
TILING_DATA_FIELD_DEF(bool, spillInUb)
TILING_DATA_FIELD_DEF(int64_t, spillElems)
TILING_DATA_FIELD_DEF(int64_t, workspaceBytesPerCore)
TILING_DATA_FIELD_DEF(int64_t, numGm)  // GM addresses the kernel entry passes
TILING_DATA_FIELD_DEF(int64_t, numOperands)
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandArg)     // GM address index; -1: scalar
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandOffset)  // elements from that address
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandDtype)
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandRowStride)
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandColStride)
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands, operandScalarBits)
// Operand k's stride along row dim d at [k * kMaxRowDims + d] (when rowRank > 0).
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxOperands* block::kMaxRowDims, operandRowStrides)
TILING_DATA_FIELD_DEF(int64_t, numAttrs)
TILING_DATA_FIELD_DEF_ARR(int64_t, kMaxAttrs, attrBits)
TILING_DATA_FIELD_DEF_ARR(int64_t, kScheduleWords, schedule)  // raw bytes of the Config
END_TILING_DATA_DEF;

// A tensor parameter described by shape: it lives at GM address `arg` (inputs then outputs of
// the op) plus `offset` elements; row_stride and strides as in TensorArg (empty, 0: dense).
struct OpTensor {
  int32_t arg = 0;
  int64_t offset = 0;
  DataType dtype = DataType::kFloat32;
  Shape shape;
  int64_t row_stride = 0;
  std::vector<int64_t> strides;
};

// PlaceHolder parameters in order, plus the attributes the Compute and schedule read.
struct OpArguments {
  std::vector<std::variant<OpTensor, ScalarArg>> params;
  Attributes attrs;
};

// What the op's tiling function reports to the runtime.
struct OpTiling {
  ElewiseTilingData data;
  uint32_t block_dim = 1;
  uint64_t workspace_bytes = 0;
};

namespace detail {

// Checks `args` against the program (as DeviceAdapter does) and resolves it; every tensor's `arg`
// must be below `gm_count`. *empty is set when every output has zero elements (then nothing else
// is checked and the problem is empty).
Result<Problem> ResolveOpProblem(const tile::ProgramView& program, const OpArguments& args,
                                 uint32_t gm_count, bool* empty);
// Stores `problem` and its tile plan in `t`; InvalidArgument beyond kMaxOperands / kMaxAttrs.
Status EncodeProblem(const Problem& problem, const TilePlan& plan, const OpArguments& args,
                     uint32_t gm_count, ElewiseTilingData& t);
// The problem `t` describes, bound to the GM addresses `gm` (inputs then outputs). Fails the block
// when `gm` does not hold the t.numGm addresses the tiling was planned for.
Problem DecodeProblem(const ElewiseTilingData& t, std::span<uint8_t* const> gm);
// The tile plan `t` holds.
TilePlan DecodePlan(const ElewiseTilingData& t);

}  // namespace detail

// Host half: the problem, block dim, schedule config and workspace for `args` on a device with
// `ub_bytes` of UB per block and `cores` vector cores; the kernel entry will pass `gm_count` GM
// addresses (the op's inputs then outputs). Errors as DeviceAdapter::can_implement, and a tensor
// whose `arg` is not below `gm_count`.
template <class KernelOp>
Result<OpTiling> MakeOpTiling(const OpArguments& args, uint32_t gm_count, uint64_t ub_bytes,
                              uint32_t cores) {
  using BlockOp = typename KernelOp::BlockOp;
  using Schedule = typename KernelOp::Schedule;
  using Config = typename KernelOp::Config;
  static_assert(std::is_trivially_copyable_v<Config> && sizeof(Config) <= 8 * kScheduleWords,
                "MakeOpTiling: the schedule's Config must be trivially copyable and at most 64 "
                "bytes to travel in the tiling data");
  OpTiling out;
  bool empty = false;
  TESSERA_ASSIGN_OR_RETURN(Problem problem,
                           detail::ResolveOpProblem(BlockOp::Program(), args, gm_count, &empty));
  if (empty) {
    out.data.empty = true;
    return out;
  }
  typename BlockOp::Arguments block{std::move(problem), ub_bytes};
  TESSERA_ASSIGN_OR_RETURN(const TilePlan plan, BlockOp::plan(block));
  Config config{};
  const grid::ScheduleArguments sargs{block.problem, args.attrs, cores};
  TESSERA_RETURN_IF_ERROR(Schedule::MakeScheduleConfig(sargs, config));
  out.block_dim = Schedule::BlockNum(config);
  if (out.block_dim == 0 || out.block_dim > 65535) {
    return InvalidArgument("elewise: the schedule asked for " + std::to_string(out.block_dim) +
                           " blocks; it must be 1..65535");
  }
  out.workspace_bytes = BlockOp::get_workspace_size(plan, out.block_dim);
  TESSERA_RETURN_IF_ERROR(detail::EncodeProblem(block.problem, plan, args, gm_count, out.data));
  std::memcpy(out.data.schedule, &config, sizeof(Config));
  return out;
}

// Device half, called by every block of the launch: this block's share of the work. `gm` holds
// the op's GM addresses (inputs then outputs), `workspace` the op's workspace. Binds the host's
// plan (to_params); plans nothing.
template <class KernelOp>
void RunOpBlock(const ElewiseTilingData& t, std::span<uint8_t* const> gm, void* workspace) {
  if (t.empty) return;
  using BlockOp = typename KernelOp::BlockOp;
  typename KernelOp::Config config;
  std::memcpy(&config, t.schedule, sizeof(config));
  KernelOp::Schedule::Run(
      config, BlockOp::to_params(detail::DecodeProblem(t, gm), detail::DecodePlan(t), workspace));
}

}  // namespace tessera::elewise::op_kernel
