// The checks of `tessera run` and `tessera demo`: an op definition's own Reference() (any
// package), else the scalar references of the built-in ops here (ops/builtin_ops.h), computed in
// double with numpy broadcasting; and the inputs fed to both.
//
// An OpDef's Reference() fills outputs of the output dtype; an element passes when
// |got - ref| <= reference_ulps() * eps(dtype) * |ref| + the smallest subnormal, NaN matches NaN,
// integers and bools must be equal.
//
// Tolerances: the reference is rounded to the output dtype, then an element passes when
// |got - ref| <= ulps * eps(dtype) * |ref| + the dtype's smallest subnormal, with eps 2^-23
// (float32), 2^-10 (float16), 2^-7 (bfloat16) and integers compared exactly. `ulps` is 1 for the
// exact ops (Add, Sub, Mul, Div, Maximum, Minimum, Abs, Relu, Sqrt, Adds, Muls, Cast: one rounding,
// plus one for double rounding through float) and 2 for Exp, Log, Rsqrt and Sigmoid (fp32 math
// within ~1 ulp, then rounded). Adds/Muls round "value" to the output dtype first, as the kernels
// hold the scalar in the tensor's type.
//
// Row ops (computed in fp32 over rows): |got - ref| <= ulps * eps(dtype) * mag + the smallest
// subnormal, with mag = |ref| (LayerNorm: |normalised * gamma| + |beta|) and ulps 128 for float32
// (2^-16: fp32 reductions over long rows), 1 for float16 and bfloat16. Their inputs: x in [-2, 2]
// (Softmax [-8, 8], SwiGlu [-6, 6], LayerNorm [1, 5]), gamma in [0.5, 1.5], beta in [-1, 1];
// epsilon defaults as the ops' (1e-6, LayerNorm 1e-5).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "op_call_args.h"
#include "tessera/runtime/op_def.h"

namespace tessera::cli {

// True when `op` is a built-in op type (it then has a built-in reference).
bool HasReference(std::string_view op);
// True for the built-in row ops (RmsNorm, AddRmsNorm, LayerNorm, Softmax, SwiGlu).
bool IsRowOp(std::string_view op);

// Fills `t` with deterministic random values from `seed` inside `op`'s domain for input `index`
// (e.g. positive for Log, |x2| >= 0.5 for Div); integers in a range where no op overflows.
void FillRandom(std::string_view op, size_t index, uint32_t seed, HostTensor& t);

struct CheckResult {
  bool ok = true;
  int64_t checked = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat output index, -1 when none
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got - ref| / |ref| over elements with ref != 0
  double ulps = 0;           // the tolerance applied (0: exact)
  std::string reference;     // "built-in" or "op definition" (the op's Reference())
};

// Compares output `out` (output number `index` of the op) of built-in op `op` with the
// reference over `inputs` and `attrs`. Precondition: HasReference(op); inputs and output shapes
// as validated by the runtime.
CheckResult CheckAgainstReference(const std::string& op, const std::vector<HostTensor>& inputs,
                                  const std::map<std::string, runtime::AttrValue>& attrs,
                                  const HostTensor& out, size_t index = 0);
// Runs `def`'s Reference() (precondition: def.reference() is set) on the present inputs of `call`
// (`inputs`, in order) and compares each of `outputs` (the kernel's, one per call output) with it.
// A failing or throwing reference is the returned error, naming the op.
Result<CheckResult> CheckAgainstOpReference(const runtime::OpDef& def, const runtime::OpCall& call,
                                            const std::vector<HostTensor>& inputs,
                                            const std::vector<HostTensor>& outputs);
// Compares `got` with `want` (same desc) element by element with the tolerance above.
CheckResult CompareOutputs(const HostTensor& got, const HostTensor& want, double ulps);

// Merges the check of another output into `total` (first_mismatch stays the first output's).
void MergeCheck(CheckResult& total, const CheckResult& more);

}  // namespace tessera::cli
