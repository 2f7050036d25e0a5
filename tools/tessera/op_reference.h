// The checks of `tessera run`: the Reference() of the op's definition (the built-in ops declare
// theirs in ops/*/ *_op.cc like any package's op), and the inputs fed to both the kernel and the
// reference, drawn from each input's declared ValueRange.
//
// An OpDef's Reference() fills outputs of the output dtype; an element passes when
// |got - ref| <= ulps * eps(dtype) * mag + the dtype's smallest subnormal, with eps 2^-23
// (float32), 2^-10 (float16), 2^-7 (bfloat16), `ulps` the declared Reference() ulps unless the
// reference set ReferenceArgs::ulps for the call, and mag = |ref| unless the reference set
// ReferenceArgs::magnitudes for that output. NaN matches NaN, infinities must be equal, integers
// and bools must be equal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "op_call_args.h"
#include "tessera/runtime/op_def.h"

namespace tessera::cli {

// Fills `t` (input `index` of a call) with deterministic random values from `seed`: floating
// point ones from `param`'s ValueRange (null: the default [-100, 100]), integers in a per-dtype
// range where no built-in op overflows.
void FillRandom(const runtime::OpParamDef* param, size_t index, uint32_t seed, HostTensor& t);

struct CheckResult {
  bool ok = true;
  int64_t checked = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat output index, -1 when none
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got - ref| / |ref| over elements with ref != 0
  double ulps = 0;           // the tolerance applied (0: exact)
  std::string reference;     // "op definition" (the op's Reference())
};

// Runs `def`'s Reference() (precondition: def.reference() is set) on the present inputs of `call`
// (`inputs`, in order) and compares each of `outputs` (the kernel's, one per call output) with it
// by the tolerance above; the result covers all outputs, first_mismatch counted across them.
// A failing or throwing reference, and one that sets a tolerance that is not finite and >= 0 or
// magnitudes of the wrong count, is the returned error, naming the op.
Result<CheckResult> CheckAgainstOpReference(const runtime::OpDef& def, const runtime::OpCall& call,
                                            const std::vector<HostTensor>& inputs,
                                            const std::vector<HostTensor>& outputs);

}  // namespace tessera::cli
