#include "tessera/elewise/op_kernel.h"

#include <string>

#include "tessera/device/block.h"

namespace tessera::elewise::op_kernel::detail {

Result<Problem> ResolveOpProblem(const tile::ProgramView& program, const OpArguments& args,
                                 uint32_t gm_count, bool* empty) {
  *empty = false;
  if (args.params.size() > static_cast<size_t>(kMaxOperands)) {
    return InvalidArgument("elewise op: " + std::to_string(args.params.size()) +
                           " parameters; an op kernel takes at most " +
                           std::to_string(kMaxOperands));
  }
  // Tiling runs before addresses exist: each tensor gets a distinct non-null stand-in so the
  // shared validation runs; the kernel rebinds the real GM addresses.
  Arguments bound;
  bound.attrs = args.attrs;
  bool any_output = false;
  bool all_outputs_empty = true;
  for (size_t i = 0; i < args.params.size(); ++i) {
    if (const auto* s = std::get_if<ScalarArg>(&args.params[i])) {
      bound.params.emplace_back(*s);
      continue;
    }
    const OpTensor& t = std::get<OpTensor>(args.params[i]);
    if (t.arg < 0) {
      return InvalidArgument("elewise op: parameter " + std::to_string(i + 1) +
                             " has a negative GM address index " + std::to_string(t.arg));
    }
    if (static_cast<uint32_t>(t.arg) >= gm_count) {
      return InvalidArgument("elewise op: parameter " + std::to_string(i + 1) +
                             " names GM address " + std::to_string(t.arg) +
                             ", but the kernel entry passes " + std::to_string(gm_count) +
                             " (the op's inputs then outputs)");
    }
    if (t.offset < 0) {
      return InvalidArgument("elewise op: parameter " + std::to_string(i + 1) +
                             " has a negative offset " + std::to_string(t.offset));
    }
    if (i < program.params.size() && program.params[i].usage != ParamUsage::IN) {
      any_output = true;
      all_outputs_empty = all_outputs_empty && t.shape.NumElements().value_or(1) == 0;
    }
    bound.params.emplace_back(TensorArg{reinterpret_cast<void*>(uintptr_t{64} * (i + 1)), t.dtype,
                                        t.shape, t.row_stride, t.strides});
  }
  if (any_output && all_outputs_empty && args.params.size() == program.params.size()) {
    *empty = true;
    return Problem{};
  }
  return ResolveProblem(program, bound);
}

Status EncodeProblem(const Problem& problem, const TilePlan& plan, const OpArguments& args,
                     uint32_t gm_count, ElewiseTilingData& t) {
  if (problem.attr_bits.size() > static_cast<size_t>(kMaxAttrs)) {
    return InvalidArgument("elewise op: the Compute reads " +
                           std::to_string(problem.attr_bits.size()) +
                           " attributes; an op kernel takes at most " + std::to_string(kMaxAttrs));
  }
  t.empty = false;
  t.traversal = static_cast<int64_t>(problem.traversal);
  t.rows = problem.rows;
  t.cols = problem.cols;
  t.rowRank = problem.row_rank;
  for (uint32_t k = 0; k < problem.row_rank; ++k)
    t.rowDims[k] = problem.row_dims[k];
  t.outputBytes = static_cast<int64_t>(problem.output_bytes);
  t.tileElems = plan.tile_elems;
  t.spillInUb = plan.spill_in_ub;
  t.spillElems = static_cast<int64_t>(plan.spill_elems);
  t.workspaceBytesPerCore = static_cast<int64_t>(plan.workspace_bytes_per_core);
  t.numGm = gm_count;
  t.numOperands = static_cast<int64_t>(problem.operands.size());
  for (size_t i = 0; i < problem.operands.size(); ++i) {
    const block::Operand& op = problem.operands[i];
    const auto* tensor = std::get_if<OpTensor>(&args.params[i]);
    t.operandArg[i] = tensor != nullptr ? tensor->arg : -1;
    t.operandOffset[i] = tensor != nullptr ? tensor->offset : 0;
    t.operandDtype[i] = static_cast<int64_t>(op.dtype);
    t.operandRowStride[i] = op.row_stride;
    t.operandColStride[i] = op.col_stride;
    t.operandScalarBits[i] = op.scalar_bits;
    for (uint32_t k = 0; k < problem.row_rank; ++k)
      t.operandRowStrides[i * block::kMaxRowDims + k] = op.row_strides[k];
  }
  t.numAttrs = static_cast<int64_t>(problem.attr_bits.size());
  for (size_t i = 0; i < problem.attr_bits.size(); ++i)
    t.attrBits[i] = problem.attr_bits[i];
  return OkStatus();
}

Problem DecodeProblem(const ElewiseTilingData& t, std::span<uint8_t* const> gm) {
  if (gm.size() != static_cast<size_t>(t.numGm)) {
    device::FailBlock(StatusCode::kInvalidArgument,
                      "elewise op kernel: the entry passes " + std::to_string(gm.size()) +
                          " GM addresses, the tiling data was planned for " +
                          std::to_string(t.numGm));
  }
  Problem p;
  p.traversal = static_cast<block::Traversal>(t.traversal);
  p.rows = t.rows;
  p.cols = t.cols;
  p.row_rank = static_cast<uint32_t>(t.rowRank);
  for (uint32_t k = 0; k < p.row_rank; ++k)
    p.row_dims[k] = t.rowDims[k];
  p.output_bytes = static_cast<uint64_t>(t.outputBytes);
  p.operands.resize(static_cast<size_t>(t.numOperands));
  for (size_t i = 0; i < p.operands.size(); ++i) {
    block::Operand& op = p.operands[i];
    op.dtype = static_cast<DataType>(t.operandDtype[i]);
    if (t.operandArg[i] >= 0) {
      op.ptr =
          gm[t.operandArg[i]] + t.operandOffset[i] * static_cast<int64_t>(DataTypeSize(op.dtype));
    }
    op.row_stride = t.operandRowStride[i];
    op.col_stride = t.operandColStride[i];
    op.scalar_bits = static_cast<uint32_t>(t.operandScalarBits[i]);
    for (uint32_t k = 0; k < p.row_rank; ++k)
      op.row_strides[k] = t.operandRowStrides[i * block::kMaxRowDims + k];
  }
  p.attr_bits.resize(static_cast<size_t>(t.numAttrs));
  for (size_t i = 0; i < p.attr_bits.size(); ++i)
    p.attr_bits[i] = static_cast<uint32_t>(t.attrBits[i]);
  return p;
}

TilePlan DecodePlan(const ElewiseTilingData& t) {
  TilePlan plan;
  plan.tile_elems = static_cast<uint32_t>(t.tileElems);
  plan.spill_in_ub = t.spillInUb;
  plan.spill_elems = static_cast<uint64_t>(t.spillElems);
  plan.workspace_bytes_per_core = static_cast<uint64_t>(t.workspaceBytesPerCore);
  return plan;
}

}  // namespace tessera::elewise::op_kernel::detail
