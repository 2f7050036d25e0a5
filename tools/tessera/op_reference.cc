#include "op_reference.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <random>

#include "ops/builtin_ops.h"

namespace tessera::cli {
namespace {

#define TESSERA_CLI_OP_NAME(Op) #Op,
constexpr std::string_view kBuiltinOps[] = {TESSERA_BUILTIN_OPS(TESSERA_CLI_OP_NAME)};
constexpr std::string_view kRowOps[] = {TESSERA_BUILTIN_ROW_OPS(TESSERA_CLI_OP_NAME)};
#undef TESSERA_CLI_OP_NAME
// The cube operators (ops/matmul).
constexpr std::string_view kMatmulOps[] = {"MatMul", "BatchMatMul", "Addmm", "MatMulAct"};

bool IsMatmulOp(std::string_view op) {
  return std::find(std::begin(kMatmulOps), std::end(kMatmulOps), op) != std::end(kMatmulOps);
}

bool IsTranscendental(std::string_view op) {
  return op == "Exp" || op == "Log" || op == "Rsqrt" || op == "Sigmoid";
}

double Epsilon(DataType d) {
  switch (d) {
    case DataType::kFloat32:
      return 0x1p-23;
    case DataType::kFloat16:
      return 0x1p-10;
    case DataType::kBfloat16:
      return 0x1p-7;
    default:
      return 0;
  }
}

double SmallestSubnormal(DataType d) {
  switch (d) {
    case DataType::kFloat32:
      return 0x1p-149;
    case DataType::kFloat16:
      return 0x1p-24;
    case DataType::kBfloat16:
      return 0x1p-133;
    default:
      return 0;
  }
}

// Domain of floating inputs per op.
std::pair<double, double> FloatRange(std::string_view op, size_t index) {
  if (IsMatmulOp(op)) return {-1, 1};
  if (IsRowOp(op)) {
    const bool gamma = (op == "AddRmsNorm" && index == 2) || (op != "AddRmsNorm" && index == 1);
    if (gamma) return {0.5, 1.5};
    if (op == "LayerNorm" && index == 2) return {-1, 1};  // beta
    if (op == "LayerNorm") return {1, 5};
    if (op == "Softmax") return {-8, 8};
    if (op == "SwiGlu") return {-6, 6};
    return {-2, 2};
  }
  if (op == "Exp") return {-10, 10};
  if (op == "Log" || op == "Rsqrt") return {1e-3, 1e3};
  if (op == "Sqrt") return {0, 1e4};
  if (op == "Sigmoid") return {-20, 20};
  if (op == "Div" && index == 1) return {0.5, 100};  // magnitude; the sign is random
  return {-100, 100};
}

std::pair<double, double> IntRange(DataType d) {
  switch (d) {
    case DataType::kBool:
      return {0, 1};
    case DataType::kUint8:
      return {0, 200};
    case DataType::kInt8:
      return {-100, 100};
    default:
      return {-1000, 1000};
  }
}

double ApplyOp(std::string_view op, double a, double b) {
  if (op == "Add" || op == "Adds") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul" || op == "Muls") return a * b;
  if (op == "Div") return a / b;
  if (op == "Maximum") return std::max(a, b);
  if (op == "Minimum") return std::min(a, b);
  if (op == "Abs") return std::fabs(a);
  if (op == "Exp") return std::exp(a);
  if (op == "Log") return std::log(a);
  if (op == "Sqrt") return std::sqrt(a);
  if (op == "Rsqrt") return 1.0 / std::sqrt(a);
  if (op == "Relu") return a < 0 ? 0.0 : a;
  if (op == "Sigmoid") return 1.0 / (1.0 + std::exp(-a));
  return a;  // Cast: the conversion is the rounding to the output dtype
}

// Element strides of `in` read at the coordinates of `out` (0 along broadcast dims).
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out) {
  std::vector<int64_t> strides(static_cast<size_t>(out.rank()), 0);
  int64_t acc = 1;
  for (int i = out.rank() - 1; i >= 0; --i) {
    const int j = i - (out.rank() - in.rank());
    const int64_t d = j < 0 ? 1 : in.dim(j);
    strides[static_cast<size_t>(i)] = d == 1 ? 0 : acc;
    acc *= d;
  }
  return strides;
}

struct RowRef {
  std::vector<double> ref;
  std::vector<double> mag;  // the scale the tolerance applies to
};

double FloatAttr(const std::map<std::string, runtime::AttrValue>& attrs, const char* name,
                 double fallback) {
  const auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<float>(&it->second)) return *v;
  return fallback;
}

// Output `index` of row op `op` in double (long double sums), row by row.
RowRef RowReference(const std::string& op, const std::vector<HostTensor>& in,
                    const std::map<std::string, runtime::AttrValue>& attrs, size_t index) {
  const Shape& xs = in[0].desc().shape;
  const int64_t width = xs.rank() > 0 ? xs.dim(xs.rank() - 1) : 0;
  const int64_t rows = width > 0 ? in[0].size() / width : 0;
  const int64_t out_width = op == "SwiGlu" ? width / 2 : width;
  RowRef r;
  r.ref.resize(static_cast<size_t>(rows * out_width));
  r.mag.resize(r.ref.size());
  const double eps = FloatAttr(attrs, "epsilon", op == "LayerNorm" ? 1e-5 : 1e-6);
  std::vector<long double> row(static_cast<size_t>(width));
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t base = i * width;
    for (int64_t k = 0; k < width; ++k) {
      row[static_cast<size_t>(k)] = in[0].Get(base + k);
      if (op == "AddRmsNorm") row[static_cast<size_t>(k)] += in[1].Get(base + k);
    }
    const auto put = [&](int64_t k, long double v, long double mag) {
      r.ref[static_cast<size_t>(i * out_width + k)] = static_cast<double>(v);
      r.mag[static_cast<size_t>(i * out_width + k)] = static_cast<double>(std::fabs(mag));
    };
    if (op == "RmsNorm" || op == "AddRmsNorm") {
      const HostTensor& gamma = in[op == "RmsNorm" ? 1 : 2];
      long double ss = 0;
      for (long double v : row)
        ss += v * v;
      const long double rstd = 1.0L / std::sqrt(ss / width + eps);
      for (int64_t k = 0; k < width; ++k) {
        const long double h = row[static_cast<size_t>(k)];
        const long double v = index == 1 ? h : h * rstd * gamma.Get(k);
        put(k, v, v);
      }
    } else if (op == "LayerNorm") {
      long double mean = 0, var = 0;
      for (long double v : row)
        mean += v;
      mean /= width;
      for (long double v : row)
        var += (v - mean) * (v - mean);
      const long double rstd = 1.0L / std::sqrt(var / width + eps);
      for (int64_t k = 0; k < width; ++k) {
        const long double x = row[static_cast<size_t>(k)];
        const long double scaled = (x - mean) * rstd * in[1].Get(k);
        const long double beta = in[2].Get(k);
        // fp32 rounding of the mean moves (x - mean) by ~2^-24 |x|.
        put(k, scaled + beta,
            std::fabs(scaled) + std::fabs(beta) + std::fabs(x * rstd * in[1].Get(k)) * 0x1p-8L);
      }
    } else if (op == "Softmax") {
      long double m = -INFINITY, sum = 0;
      for (long double v : row)
        m = std::max(m, v);
      for (long double v : row)
        sum += std::exp(v - m);
      for (int64_t k = 0; k < width; ++k) {
        const long double v = std::exp(row[static_cast<size_t>(k)] - m) / sum;
        put(k, v, v);
      }
    } else {  // SwiGlu
      for (int64_t k = 0; k < out_width; ++k) {
        const long double a = row[static_cast<size_t>(k)];
        const long double v = a / (1.0L + std::exp(-a)) * row[static_cast<size_t>(out_width + k)];
        put(k, v, v);
      }
    }
  }
  return r;
}

CheckResult CheckRowOp(const std::string& op, const std::vector<HostTensor>& inputs,
                       const std::map<std::string, runtime::AttrValue>& attrs,
                       const HostTensor& out, size_t index) {
  const DataType od = out.desc().dtype;
  const RowRef ref = RowReference(op, inputs, attrs, index);
  CheckResult r;
  r.ulps = od == DataType::kFloat32 ? 128 : 1;
  const double tol = r.ulps * Epsilon(od), floor = SmallestSubnormal(od);
  const int64_t n = std::min<int64_t>(out.size(), static_cast<int64_t>(ref.ref.size()));
  for (int64_t i = 0; i < n; ++i) {
    const double want = ref.ref[static_cast<size_t>(i)];
    const double err = std::fabs(out.Get(i) - want);
    if (!std::isnan(err)) {
      r.max_abs_error = std::max(r.max_abs_error, err);
      if (want != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(want));
    }
    if (!(err <= tol * ref.mag[static_cast<size_t>(i)] + floor)) {
      if (r.first_mismatch < 0) r.first_mismatch = i;
      ++r.mismatches;
    }
  }
  r.checked = out.size();
  r.ok = r.mismatches == 0 && n == out.size();
  return r;
}

bool BoolAttr(const std::map<std::string, runtime::AttrValue>& attrs, const char* name) {
  const auto it = attrs.find(name);
  if (it == attrs.end()) return false;
  if (const auto* v = std::get_if<bool>(&it->second)) return *v;
  return false;
}

// The matmul operators in double: y = act(alpha * x1 x2 + bias + beta * self) with numpy
// broadcasting of BatchMatMul's batch dims and Addmm's self. The tolerance is CATLASS's:
// |got - ref| <= rtol * max(1, |ref|), rtol 1/256 for K < 2048 else 1/128, plus the output
// rounding (2^-8 float16, 2^-7 bfloat16); int32 exact.
CheckResult CheckMatmulOp(const std::string& op, const std::vector<HostTensor>& in,
                          const std::map<std::string, runtime::AttrValue>& attrs,
                          const HostTensor& out) {
  const bool addmm = op == "Addmm";
  const HostTensor& a = in[addmm ? 1 : 0];
  const HostTensor& b = in[addmm ? 2 : 1];
  const bool ta = BoolAttr(attrs, op == "BatchMatMul" ? "adj_x1" : "transpose_x1");
  const bool tb = BoolAttr(attrs, op == "BatchMatMul" ? "adj_x2" : "transpose_x2");
  const Shape& as = a.desc().shape;
  const Shape& bs = b.desc().shape;
  const Shape& os = out.desc().shape;
  CheckResult r;
  const DataType od = out.desc().dtype;
  if (as.rank() < 2 || bs.rank() < 2 || os.rank() < 2) {
    r.ok = false;
    return r;
  }
  const int64_t m = ta ? as.dim(as.rank() - 1) : as.dim(as.rank() - 2);
  const int64_t k = ta ? as.dim(as.rank() - 2) : as.dim(as.rank() - 1);
  const int64_t n = tb ? bs.dim(bs.rank() - 2) : bs.dim(bs.rank() - 1);
  // Batch offsets of a and b for each output batch (numpy broadcasting over the leading dims).
  std::vector<int64_t> batch_dims(os.dims().begin(), os.dims().end() - 2);
  const Shape a_batch = *Shape::Make(std::span<const int64_t>(as.dims().data(), as.rank() - 2));
  const Shape b_batch = *Shape::Make(std::span<const int64_t>(bs.dims().data(), bs.rank() - 2));
  const Shape o_batch = *Shape::Make(std::span<const int64_t>(batch_dims));
  const std::vector<int64_t> sa = BroadcastStrides(a_batch, o_batch);
  const std::vector<int64_t> sb = BroadcastStrides(b_batch, o_batch);
  int64_t batches = 1;
  for (int64_t d : batch_dims)
    batches *= d;
  const double alpha = FloatAttr(attrs, "alpha", 1.0), beta = FloatAttr(attrs, "beta", 1.0);
  std::string act = op == "MatMulAct" ? "relu" : "none";
  if (const auto it = attrs.find("act"); it != attrs.end()) {
    if (const auto* v = std::get_if<std::string>(&it->second)) act = *v;
  }
  const double slope = FloatAttr(attrs, "negative_slope", 0.01);
  const HostTensor* bias =
      (op == "MatMul" || op == "MatMulAct") && in.size() > 2 ? &in[2] : nullptr;
  const HostTensor* self = addmm ? &in[0] : nullptr;
  std::vector<int64_t> self_strides;
  if (self != nullptr) self_strides = BroadcastStrides(self->desc().shape, *Shape::Make({m, n}));
  const double rtol = (k < 2048 ? 1.0 / 256 : 1.0 / 128) + (od == DataType::kFloat16    ? 0x1p-8
                                                            : od == DataType::kBfloat16 ? 0x1p-7
                                                                                        : 0);
  r.ulps = Epsilon(od) == 0 ? 0 : rtol / Epsilon(od);
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t bi = 0; bi < batches; ++bi) {
    int64_t oa = 0, ob = 0, rem = bi;
    for (size_t d = batch_dims.size(); d-- > 0;) {
      const int64_t idx = rem % batch_dims[d];
      rem /= batch_dims[d];
      oa += idx * sa[d];
      ob += idx * sb[d];
    }
    oa *= m * k;
    ob *= k * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double av = a.Get(oa + (ta ? kk * m + i : i * k + kk));
        for (int64_t j = 0; j < n; ++j)
          row[static_cast<size_t>(j)] += av * b.Get(ob + (tb ? j * k + kk : kk * n + j));
      }
      for (int64_t j = 0; j < n; ++j) {
        double v = alpha * row[static_cast<size_t>(j)];
        if (bias != nullptr) v += bias->Get(j);
        if (self != nullptr) v += beta * self->Get(i * self_strides[0] + j * self_strides[1]);
        if (act == "relu") v = v > 0 ? v : 0;
        if (act == "gelu")
          v = 0.5 * v * (1 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
        if (act == "silu") v = v / (1 + std::exp(-v));
        if (act == "leaky_relu") v = v > 0 ? v : slope * v;
        const int64_t at = (bi * m + i) * n + j;
        if (at >= out.size()) continue;
        const double got = out.Get(at);
        const double err = std::fabs(got - v);
        const bool ok = Epsilon(od) == 0 ? got == v : err <= rtol * std::max(1.0, std::fabs(v));
        if (!std::isnan(err)) {
          r.max_abs_error = std::max(r.max_abs_error, err);
          if (v != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(v));
        }
        if (!ok) {
          if (r.first_mismatch < 0) r.first_mismatch = at;
          ++r.mismatches;
        }
      }
    }
  }
  r.checked = out.size();
  r.ok = r.mismatches == 0 && batches * m * n == out.size();
  return r;
}

}  // namespace

bool IsRowOp(std::string_view op) {
  return std::find(std::begin(kRowOps), std::end(kRowOps), op) != std::end(kRowOps);
}

CheckResult CompareOutputs(const HostTensor& got, const HostTensor& want, double ulps) {
  const DataType od = got.desc().dtype;
  CheckResult r;
  r.ulps = Epsilon(od) == 0 ? 0 : ulps;
  const double rel_tol = r.ulps * Epsilon(od), abs_tol = SmallestSubnormal(od);
  for (int64_t i = 0; i < got.size(); ++i) {
    const double ref = want.Get(i), v = got.Get(i);
    bool ok;
    if (std::isnan(ref) || std::isinf(ref)) {
      ok = std::isnan(ref) ? std::isnan(v) : v == ref;
    } else {
      const double err = std::fabs(v - ref);
      ok = err <= rel_tol * std::fabs(ref) + abs_tol;
      if (!std::isnan(err)) {
        r.max_abs_error = std::max(r.max_abs_error, err);
        if (ref != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(ref));
      }
    }
    if (!ok) {
      if (r.first_mismatch < 0) r.first_mismatch = i;
      ++r.mismatches;
    }
  }
  r.checked = got.size();
  r.ok = r.mismatches == 0;
  r.reference = "op definition";
  return r;
}

Result<CheckResult> CheckAgainstOpReference(const runtime::OpDef& def, const runtime::OpCall& call,
                                            const std::vector<HostTensor>& inputs,
                                            const std::vector<HostTensor>& outputs) {
  runtime::ReferenceArgs args;
  size_t next = 0;
  for (const auto& in : call.inputs) {
    if (!in) {
      args.inputs.emplace_back(std::nullopt);
      continue;
    }
    const HostTensor& t = inputs.at(next++);
    // Inputs are handed out read-only by contract (ReferenceTensor::data).
    args.inputs.push_back(
        runtime::ReferenceTensor{t.desc(), const_cast<uint8_t*>(t.bytes().data())});
  }
  args.inputs.resize(std::max(args.inputs.size(), def.inputs().size()));  // absent optional ones
  std::vector<HostTensor> want;
  for (const runtime::TensorArg& out : call.outputs) {
    HostTensor& w = want.emplace_back(out.desc);
    args.outputs.push_back(runtime::ReferenceTensor{w.desc(), w.bytes().data()});
  }
  TESSERA_ASSIGN_OR_RETURN(args.attrs, def.ResolveAttrs(call.attrs));
  Status st;
  try {
    st = def.reference()(args);
  } catch (const std::exception& e) {
    st = Internal(std::string("threw ") + e.what());
  } catch (...) {
    st = Internal("threw a non-std::exception");
  }
  if (!st.ok()) {
    return Status(st.code(),
                  "the Reference() of " + def.type() + " failed: " + std::string(st.message()));
  }
  CheckResult total;
  for (size_t i = 0; i < outputs.size() && i < want.size(); ++i) {
    const CheckResult c = CompareOutputs(outputs[i], want[i], def.reference_ulps());
    if (i == 0) {
      total = c;
    } else {
      MergeCheck(total, c);
    }
  }
  return total;
}

void MergeCheck(CheckResult& total, const CheckResult& more) {
  if (total.first_mismatch < 0 && more.first_mismatch >= 0) {
    total.first_mismatch = total.checked + more.first_mismatch;
  }
  total.ok = total.ok && more.ok;
  total.checked += more.checked;
  total.mismatches += more.mismatches;
  total.max_abs_error = std::max(total.max_abs_error, more.max_abs_error);
  total.max_rel_error = std::max(total.max_rel_error, more.max_rel_error);
  total.ulps = std::max(total.ulps, more.ulps);
}

bool HasReference(std::string_view op) {
  return IsMatmulOp(op) ||
         std::find(std::begin(kBuiltinOps), std::end(kBuiltinOps), op) != std::end(kBuiltinOps);
}

void FillRandom(std::string_view op, size_t index, uint32_t seed, HostTensor& t) {
  std::mt19937_64 rng(seed * 1000003ull + index);
  const DataType d = t.desc().dtype;
  if (IsFloatingPoint(d)) {
    const auto [lo, hi] = FloatRange(op, index);
    std::uniform_real_distribution<double> dist(lo, hi);
    std::bernoulli_distribution negative(0.5);
    const bool random_sign = op == "Div" && index == 1;
    for (int64_t i = 0; i < t.size(); ++i)
      t.Set(i, random_sign && negative(rng) ? -dist(rng) : dist(rng));
  } else {
    const auto [lo, hi] = IntRange(d);
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (int64_t i = 0; i < t.size(); ++i)
      t.Set(i, static_cast<double>(dist(rng)));
  }
}

namespace {

CheckResult CheckBuiltin(const std::string& op, const std::vector<HostTensor>& inputs,
                         const std::map<std::string, runtime::AttrValue>& attrs,
                         const HostTensor& out, size_t index) {
  if (IsRowOp(op)) return CheckRowOp(op, inputs, attrs, out, index);
  if (IsMatmulOp(op)) return CheckMatmulOp(op, inputs, attrs, out);
  const DataType od = out.desc().dtype;
  double scalar = 0;
  if (const auto it = attrs.find("value"); it != attrs.end()) {
    if (const auto* v = std::get_if<float>(&it->second)) scalar = RoundTo(od, *v);
  }
  const Shape& oshape = out.desc().shape;
  const int rank = oshape.rank();
  std::vector<std::vector<int64_t>> strides;
  for (const HostTensor& in : inputs)
    strides.push_back(BroadcastStrides(in.desc().shape, oshape));
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0), offset(inputs.size(), 0);

  CheckResult r;
  r.ulps = Epsilon(od) == 0 ? 0 : IsTranscendental(op) ? 2 : 1;
  const double rel_tol = r.ulps * Epsilon(od), abs_tol = SmallestSubnormal(od);
  for (int64_t i = 0; i < out.size(); ++i) {
    const double a = inputs[0].Get(offset[0]);
    const double b = inputs.size() > 1 ? inputs[1].Get(offset[1]) : scalar;
    const double ref = RoundTo(od, ApplyOp(op, a, b));
    const double got = out.Get(i);
    bool ok;
    if (std::isnan(ref) || std::isinf(ref)) {
      ok = std::isnan(ref) ? std::isnan(got) : got == ref;
    } else {
      const double err = std::fabs(got - ref);
      ok = err <= rel_tol * std::fabs(ref) + abs_tol;
      if (!std::isnan(err)) {
        r.max_abs_error = std::max(r.max_abs_error, err);
        if (ref != 0) r.max_rel_error = std::max(r.max_rel_error, err / std::fabs(ref));
      }
    }
    if (!ok) {
      if (r.first_mismatch < 0) r.first_mismatch = i;
      ++r.mismatches;
    }
    // Advance the output coordinate and every input's broadcast offset.
    for (int d = rank - 1; d >= 0; --d) {
      const auto ud = static_cast<size_t>(d);
      for (size_t k = 0; k < inputs.size(); ++k)
        offset[k] += strides[k][ud];
      if (++coord[ud] < oshape.dim(d)) break;
      for (size_t k = 0; k < inputs.size(); ++k)
        offset[k] -= strides[k][ud] * oshape.dim(d);
      coord[ud] = 0;
    }
  }
  r.checked = out.size();
  r.ok = r.mismatches == 0;
  return r;
}

}  // namespace

CheckResult CheckAgainstReference(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const std::map<std::string, runtime::AttrValue>& attrs,
                                  const HostTensor& out, size_t index) {
  CheckResult r = CheckBuiltin(op, inputs, attrs, out, index);
  r.reference = "built-in";
  return r;
}

}  // namespace tessera::cli
