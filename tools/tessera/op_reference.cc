#include "op_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "ops/builtin_ops.h"

namespace tessera::cli {
namespace {

#define TESSERA_CLI_OP_NAME(Op) #Op,
constexpr std::string_view kBuiltinOps[] = {TESSERA_BUILTIN_OPS(TESSERA_CLI_OP_NAME)};
#undef TESSERA_CLI_OP_NAME

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

}  // namespace

bool HasReference(std::string_view op) {
  return std::find(std::begin(kBuiltinOps), std::end(kBuiltinOps), op) != std::end(kBuiltinOps);
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

CheckResult CheckAgainstReference(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const std::map<std::string, runtime::AttrValue>& attrs,
                                  const HostTensor& out) {
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

}  // namespace tessera::cli
