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
  p.cols = full.back();
  p.rows = 1;
  for (size_t k = 0; k + 1 < full.size(); ++k)
    p.rows *= full[k];
  const int64_t reduced_len = program.pattern == ReducePattern::AR ? p.rows : p.cols;
  bool dense = true;
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
    const int64_t count = *t.shape.NumElements();
    op.ptr = t.data;
    op.dtype = t.dtype;
    const bool written = info.usage != ParamUsage::IN;
    if (written) p.output_bytes += static_cast<uint64_t>(count) * DataTypeSize(t.dtype);
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
      if (t.row_stride > 0 && t.row_stride != p.cols && p.rows > 1) dense = false;
      continue;
    }
    if (t.row_stride > 0) {
      return InvalidArgument("elewise: " + ParamName(i) + ": row_stride needs a full-shape tensor");
    }
    dense = false;
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
  if (program.has_reduction) {
    p.traversal = program.pattern == ReducePattern::AR ? Traversal::kRows : Traversal::kColumns;
  } else if (dense) {
    // Elementwise over equal shapes: one flat row, split by elements.
    p.traversal = Traversal::kFlat;
    p.cols *= p.rows;
    p.rows = 1;
    for (block::Operand& op : p.operands)
      op.row_stride = 0;
  } else {
    p.traversal = Traversal::kRows;
  }
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
