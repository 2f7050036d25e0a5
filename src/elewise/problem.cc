#include "tessera/elewise/detail/problem.h"

#include <algorithm>
#include <bit>
#include <string>

namespace tessera::elewise {
namespace {

using block::Traversal;

std::string ParamName(size_t i) {
  return "parameter " + std::to_string(i + 1);
}

// numpy broadcast of a and b, right-aligned.
Result<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1) return InvalidArgument("");
    out[out.size() - 1 - k] = std::max(x, y);
  }
  return out;
}

std::string DimsString(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

std::vector<int64_t> Dims(const Shape& s) {
  return {s.dims().begin(), s.dims().end()};
}

// Element strides of tensor `t`, one per dim: its own, else dense (rows row_stride apart).
Result<std::vector<int64_t>> StridesOf(size_t i, const TensorArg& t) {
  const auto rank = static_cast<size_t>(t.shape.rank());
  if (!t.strides.empty()) {
    if (t.strides.size() != rank) {
      return InvalidArgument("elewise: " + ParamName(i) + " has " +
                             std::to_string(t.strides.size()) + " strides for rank " +
                             std::to_string(rank));
    }
    for (int64_t s : t.strides) {
      if (s < 0) return InvalidArgument("elewise: " + ParamName(i) + " has a negative stride");
    }
    return t.strides;
  }
  std::vector<int64_t> s(rank, 1);
  for (size_t k = rank - 1; k-- > 0;) {
    s[k] = k + 2 == rank && t.row_stride > 0 ? t.row_stride : s[k + 1] * t.shape.dim(k + 1);
  }
  return s;
}

// Programs without reductions: any numpy broadcast, any input strides. The broadcast shape's
// dims are coalesced innermost first: size-1 dims go, and a dim merges into its inner neighbour
// when every tensor steps over it as over one longer dim.
Status ResolveElementwise(const tile::ProgramView& program, const Arguments& args,
                          const std::vector<int64_t>& full, Problem& p) {
  const size_t n = program.params.size();
  const size_t rank = full.size();
  // Per tensor parameter: strides aligned to `full` (0 along broadcast dims).
  std::vector<std::vector<int64_t>> aligned(n);
  for (size_t i = 0; i < n; ++i) {
    const tile::ParamInfo& info = program.params[i];
    if (!info.is_tensor) continue;
    const auto& t = std::get<TensorArg>(args.params[i]);
    const std::vector<int64_t> dims = Dims(t.shape);
    const bool written = info.usage != ParamUsage::IN;
    if (written && dims != full) {
      return InvalidArgument("elewise: output " + ParamName(i) + " has shape " +
                             t.shape.ToString() + ", expected " + DimsString(full));
    }
    if (written && !t.strides.empty()) {
      return InvalidArgument("elewise: output " + ParamName(i) + " has strides; outputs are dense");
    }
    if (t.row_stride > 0 && t.row_stride < dims.back()) {
      return InvalidArgument("elewise: " + ParamName(i) + " has row_stride " +
                             std::to_string(t.row_stride) + " below its row length " +
                             std::to_string(dims.back()));
    }
    TESSERA_ASSIGN_OR_RETURN(const std::vector<int64_t> own, StridesOf(i, t));
    std::vector<int64_t>& a = aligned[i];
    a.assign(rank, 0);
    const size_t lead = rank - dims.size();
    for (size_t k = 0; k < dims.size(); ++k)
      a[lead + k] = dims[k] == 1 ? 0 : own[k];
  }
  // Coalesced dims, innermost first.
  std::vector<int64_t> cdims;
  std::vector<std::vector<int64_t>> cstr(n);
  for (size_t k = rank; k-- > 0;) {
    if (full[k] == 1) continue;
    bool merge = !cdims.empty();
    for (size_t i = 0; i < n && merge; ++i) {
      if (!aligned[i].empty()) merge = aligned[i][k] == cstr[i].back() * cdims.back();
    }
    if (merge) {
      cdims.back() *= full[k];
      continue;
    }
    cdims.push_back(full[k]);
    for (size_t i = 0; i < n; ++i) {
      if (!aligned[i].empty()) cstr[i].push_back(aligned[i][k]);
    }
  }
  if (cdims.empty()) {  // one element
    cdims.push_back(1);
    for (size_t i = 0; i < n; ++i) {
      if (!aligned[i].empty()) cstr[i].push_back(1);
    }
  }
  const size_t crank = cdims.size();
  if (crank - 1 > static_cast<size_t>(block::kMaxRowDims)) {
    return Unimplemented("elewise: the problem has " + std::to_string(crank) +
                         " dims after coalescing; at most " +
                         std::to_string(block::kMaxRowDims + 1) + " are supported");
  }
  p.cols = cdims[0];
  p.rows = 1;
  for (size_t k = 1; k < crank; ++k)
    p.rows *= cdims[k];
  p.traversal = crank == 1 ? Traversal::kFlat : Traversal::kRows;
  p.row_rank = crank > 2 ? static_cast<uint32_t>(crank - 1) : 0;
  for (uint32_t k = 0; k < p.row_rank; ++k)
    p.row_dims[k] = cdims[crank - 1 - k];
  for (size_t i = 0; i < n; ++i) {
    if (aligned[i].empty()) continue;
    block::Operand& op = p.operands[i];
    const std::vector<int64_t>& s = cstr[i];
    op.col_stride = s[0];
    op.row_stride = crank > 1 ? s[1] : 0;
    for (uint32_t k = 0; k < p.row_rank; ++k)
      op.row_strides[k] = s[crank - 1 - k];
    if (program.params[i].usage == ParamUsage::IN) continue;
    // Outputs are dense (or rows row_stride apart): row r starts at r * row_stride, which the
    // checked mode's write ranges rely on.
    bool even = op.col_stride == 1;
    for (uint32_t k = 0; k + 1 < p.row_rank; ++k)
      even = even && op.row_strides[k] == op.row_strides[k + 1] * p.row_dims[k + 1];
    if (!even) return InvalidArgument("elewise: output " + ParamName(i) + " is not dense");
  }
  return OkStatus();
}

Status ResolveAttrs(const tile::ProgramView& program, const Arguments& args, Problem& p) {
  for (const tile::AttrInfo& a : program.attrs) {
    auto v = args.attrs.Number(a.name);
    if (!v && a.has_default && args.attrs.Find(a.name) == nullptr) v = a.default_value;
    if (!v) {
      return InvalidArgument("elewise: attribute '" + std::string(a.name) +
                             "' is missing or not a number");
    }
    p.attr_bits.push_back(a.dtype == DataType::kInt32
                              ? static_cast<uint32_t>(static_cast<int32_t>(*v))
                              : std::bit_cast<uint32_t>(static_cast<float>(*v)));
  }
  return OkStatus();
}

}  // namespace

Result<Problem> ResolveProblem(const tile::ProgramView& program, const Arguments& args) {
  const size_t n = program.params.size();
  if (args.params.size() != n) {
    return InvalidArgument("elewise: the operator takes " + std::to_string(n) +
                           " parameters (PlaceHolder 1.." + std::to_string(n) + "), got " +
                           std::to_string(args.params.size()));
  }
  // Pass 1: kinds, dtypes, data, non-empty shapes; the broadcast shape of all full-shape tensors.
  std::vector<int64_t> full;
  bool have_full = false;
  for (size_t i = 0; i < n; ++i) {
    const tile::ParamInfo& info = program.params[i];
    const auto* t = std::get_if<TensorArg>(&args.params[i]);
    if (!info.is_tensor) {
      const auto* s = std::get_if<ScalarArg>(&args.params[i]);
      if (s == nullptr) return InvalidArgument("elewise: " + ParamName(i) + " must be a scalar");
      if (s->dtype != info.dtype) {
        return InvalidArgument("elewise: " + ParamName(i) + " is a " +
                               std::string(DataTypeName(s->dtype)) + " scalar, expected " +
                               std::string(DataTypeName(info.dtype)));
      }
      continue;
    }
    if (t == nullptr) return InvalidArgument("elewise: " + ParamName(i) + " must be a tensor");
    if (t->dtype != info.dtype) {
      return InvalidArgument("elewise: " + ParamName(i) + " has dtype " +
                             std::string(DataTypeName(t->dtype)) + ", expected " +
                             std::string(DataTypeName(info.dtype)));
    }
    if (t->data == nullptr) return InvalidArgument("elewise: " + ParamName(i) + " has null data");
    if (t->shape.rank() == 0) {
      return InvalidArgument("elewise: " + ParamName(i) + " has an empty shape (rank 0)");
    }
    for (int64_t d : t->shape.dims()) {
      if (d == 0) {
        return InvalidArgument("elewise: " + ParamName(i) + " has a zero-sized dimension " +
                               t->shape.ToString() + "; nothing to compute");
      }
    }
    if (info.reduced_output) continue;
    if (!have_full) {
      full = Dims(t->shape);
      have_full = true;
      continue;
    }
    auto b = BroadcastShapes(full, Dims(t->shape));
    if (!b.ok()) {
      return InvalidArgument("elewise: " + ParamName(i) + " has shape " + t->shape.ToString() +
                             ", which does not broadcast with " + DimsString(full));
    }
    full = *b;
  }
  if (!have_full) {
    return InvalidArgument("elewise: the operator needs at least one non-reduced tensor");
  }

  Problem p;
  p.operands.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const tile::ParamInfo& info = program.params[i];
    block::Operand& op = p.operands[i];
    if (!info.is_tensor) {
      const auto& s = std::get<ScalarArg>(args.params[i]);
      op.dtype = s.dtype;
      op.scalar_bits =
          s.dtype == DataType::kInt32 ? static_cast<uint32_t>(s.i) : std::bit_cast<uint32_t>(s.f);
      continue;
    }
    const auto& t = std::get<TensorArg>(args.params[i]);
    op.ptr = t.data;
    op.dtype = t.dtype;
    if (info.usage != ParamUsage::IN) {
      p.output_bytes += static_cast<uint64_t>(*t.shape.NumElements()) * DataTypeSize(t.dtype);
    }
    if (!program.has_reduction || t.strides.empty()) continue;
    TESSERA_ASSIGN_OR_RETURN(const std::vector<int64_t> own, StridesOf(i, t));
    if (own != StridesOf(i, TensorArg{t.data, t.dtype, t.shape, t.row_stride, {}}).value()) {
      return Unimplemented("elewise: " + ParamName(i) +
                           " is a strided view; operators with reductions take dense tensors");
    }
  }
  if (!program.has_reduction) {
    TESSERA_RETURN_IF_ERROR(ResolveElementwise(program, args, full, p));
    TESSERA_RETURN_IF_ERROR(ResolveAttrs(program, args, p));
    return p;
  }
  p.cols = full.back();
  p.rows = 1;
  for (size_t k = 0; k + 1 < full.size(); ++k)
    p.rows *= full[k];
  const int64_t reduced_len = program.pattern == ReducePattern::AR ? p.rows : p.cols;
  for (size_t i = 0; i < n; ++i) {
    const tile::ParamInfo& info = program.params[i];
    block::Operand& op = p.operands[i];
    if (!info.is_tensor) continue;
    const auto& t = std::get<TensorArg>(args.params[i]);
    const int64_t count = *t.shape.NumElements();
    const bool written = info.usage != ParamUsage::IN;
    if (info.reduced_output) {
      if (count != reduced_len) {
        return InvalidArgument("elewise: " + ParamName(i) + " receives a reduction and needs " +
                               std::to_string(reduced_len) + " elements, has shape " +
                               t.shape.ToString());
      }
      op.row_stride = 0;
      op.col_stride = 1;
      continue;
    }
    const std::vector<int64_t> dims = Dims(t.shape);
    if (written && dims != full) {
      return InvalidArgument("elewise: output " + ParamName(i) + " has shape " +
                             t.shape.ToString() + ", expected " + DimsString(full));
    }
    // Right-align against the broadcast shape and classify.
    std::vector<int64_t> aligned(full.size() - dims.size(), 1);
    aligned.insert(aligned.end(), dims.begin(), dims.end());
    const bool last_full = aligned.back() == p.cols;
    bool leading_ones = true;
    bool leading_full = true;
    for (size_t k = 0; k + 1 < full.size(); ++k) {
      leading_ones = leading_ones && aligned[k] == 1;
      leading_full = leading_full && aligned[k] == full[k];
    }
    if (leading_full && last_full) {
      op.row_stride = t.row_stride > 0 ? t.row_stride : p.cols;
      op.col_stride = 1;
      if (t.row_stride > 0 && t.row_stride < p.cols) {
        return InvalidArgument("elewise: " + ParamName(i) + " has row_stride " +
                               std::to_string(t.row_stride) + " below its row length " +
                               std::to_string(p.cols));
      }
      continue;
    }
    if (t.row_stride > 0) {
      return InvalidArgument("elewise: " + ParamName(i) + ": row_stride needs a full-shape tensor");
    }
    if (leading_ones && last_full) {  // [N]: the same row for every row
      op.row_stride = 0;
      op.col_stride = 1;
    } else if (leading_full && aligned.back() == 1) {  // [.., 1]: one value per row
      op.row_stride = 1;
      op.col_stride = 0;
    } else if (leading_ones && aligned.back() == 1) {  // a one-element tensor
      op.row_stride = 0;
      op.col_stride = 0;
    } else {
      return Unimplemented("elewise: " + ParamName(i) + ": broadcasting " + t.shape.ToString() +
                           " to " + DimsString(full) +
                           " is supported only along the last axis or all leading axes");
    }
  }
  TESSERA_RETURN_IF_ERROR(ResolveAttrs(program, args, p));
  p.traversal = program.pattern == ReducePattern::AR ? Traversal::kRows : Traversal::kColumns;
  return p;
}

Result<TilePlan> PlanTiles(const tile::ProgramView& program, const Problem& problem,
                           uint64_t ub_bytes, uint32_t max_tile) {
  const uint64_t buffers = program.num_regs + 2 * program.reduced.size();
  const uint64_t usable = ub_bytes > 64 ? ub_bytes - 64 : 0;
  const uint64_t fit = buffers == 0 ? max_tile : usable / (4 * buffers) / 64 * 64;
  TilePlan plan;
  plan.tile_elems = static_cast<uint32_t>(std::min<uint64_t>(max_tile, fit));
  if (plan.tile_elems < 64) {
    return OutOfRange("elewise: the program keeps " + std::to_string(buffers) +
                      " tile buffers live; " + std::to_string(ub_bytes) +
                      " bytes of UB do not hold 64 lanes of each");
  }
  if (program.num_spills == 0) return plan;
  plan.spill_elems = problem.traversal == block::Traversal::kColumns
                         ? static_cast<uint64_t>(problem.rows) * plan.tile_elems
                         : (static_cast<uint64_t>(problem.cols) + 63) / 64 * 64;
  const uint64_t spill_bytes = program.num_spills * plan.spill_elems * 4;
  if (block::RegisterBytes(program, plan.tile_elems) + spill_bytes <= ub_bytes) return plan;
  plan.spill_in_ub = false;
  plan.workspace_bytes_per_core = (spill_bytes + 63) / 64 * 64;
  return plan;
}

}  // namespace tessera::elewise
