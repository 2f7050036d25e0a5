// Runs a resolved op call through the two-stage API on random inputs: used by `tessera run` and
// `tessera demo`.
#pragma once

#include <cstdint>
#include <optional>

#include "op_call_args.h"
#include "op_reference.h"
#include "tessera/runtime/op_runtime.h"

namespace tessera::cli {

struct RunReport {
  runtime::PlanInfo plan;
  int iters = 0;
  double cold_us = 0;                // first call: PrepareOp + ExecuteOp + Synchronize
  bool cold_cache_hit = false;       // the first PrepareOp hit the parameter cache
  double median_us = 0;              // median over `iters` later calls, same span as cold_us
  double kernel_median_us = 0;       // median between events recorded around ExecuteOp
  uint64_t hits = 0;                 // parameter cache hits during the `iters` calls
  uint64_t tiling_calls = 0;         // tiling functions run during the `iters` calls
  uint64_t bytes = 0;                // bytes read (inputs) + written (outputs) per call
  double gbps = 0;                   // bytes / median_us
  std::optional<CheckResult> check;  // nullopt: no reference for this op
  // With keep_tensors: the present inputs and every output of the last call, on the host.
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> outputs;
};

// Allocates device tensors for `rc.call`, uploads inputs filled by FillRandom(seed) from the
// ValueRanges of the op's definition in `rc.package_dir`, calls the op once cold and then `iters`
// times (iters >= 1), and checks every output against the Reference() of its definition in the
// package that ran it, when it declares one. Every runtime failure, and a failing reference, is
// the returned Status.
Result<RunReport> RunOpCall(ResolvedCall& rc, int iters, uint32_t seed, bool keep_tensors = false);

}  // namespace tessera::cli
