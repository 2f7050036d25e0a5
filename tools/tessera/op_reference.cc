#include "op_reference.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <random>

namespace tessera::cli {
namespace {

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

// Compares `got` with `want` (same desc) element by element with the tolerance of op_reference.h;
// `magnitudes` empty (|want| is the scale) or one per element.
CheckResult CompareOutputs(const HostTensor& got, const HostTensor& want, double ulps,
                           const std::vector<double>& magnitudes) {
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
      const double mag = magnitudes.empty() ? std::fabs(ref) : magnitudes[static_cast<size_t>(i)];
      ok = err <= rel_tol * mag + abs_tol;
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

// Merges the check of another output into `total` (first_mismatch stays the first output's).
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

}  // namespace

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
  args.ulps = def.reference_ulps();
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
  if (!(std::isfinite(args.ulps) && args.ulps >= 0)) {
    return Internal("the Reference() of " + def.type() + " set a tolerance of " +
                    std::to_string(args.ulps) + " ulps; expected a finite number >= 0");
  }
  if (args.magnitudes.size() > want.size()) {
    return Internal("the Reference() of " + def.type() + " set magnitudes for " +
                    std::to_string(args.magnitudes.size()) + " outputs; the op has " +
                    std::to_string(want.size()));
  }
  args.magnitudes.resize(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const std::vector<double>& m = args.magnitudes[i];
    if (!m.empty() && static_cast<int64_t>(m.size()) != want[i].size()) {
      return Internal("the Reference() of " + def.type() + " set " + std::to_string(m.size()) +
                      " magnitudes for output " + std::to_string(i) + " of " +
                      std::to_string(want[i].size()) + " elements");
    }
  }
  CheckResult total;
  for (size_t i = 0; i < outputs.size() && i < want.size(); ++i) {
    const CheckResult c = CompareOutputs(outputs[i], want[i], args.ulps, args.magnitudes[i]);
    if (i == 0) {
      total = c;
    } else {
      MergeCheck(total, c);
    }
  }
  return total;
}

void FillRandom(const runtime::OpParamDef* param, size_t index, uint32_t seed, HostTensor& t) {
  std::mt19937_64 rng(seed * 1000003ull + index);
  const DataType d = t.desc().dtype;
  if (IsFloatingPoint(d)) {
    const runtime::OpParamDef::ValueRangeDef range =
        param != nullptr ? param->value_range() : runtime::OpParamDef::ValueRangeDef{};
    std::uniform_real_distribution<double> dist(range.lo, range.hi);
    std::bernoulli_distribution negative(0.5);
    for (int64_t i = 0; i < t.size(); ++i)
      t.Set(i, range.random_sign && negative(rng) ? -dist(rng) : dist(rng));
  } else {
    const auto [lo, hi] = IntRange(d);
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
    for (int64_t i = 0; i < t.size(); ++i)
      t.Set(i, static_cast<double>(dist(rng)));
  }
}

}  // namespace tessera::cli
