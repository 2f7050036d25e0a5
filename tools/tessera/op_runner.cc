#include "op_runner.h"

#include <algorithm>
#include <chrono>

#include "op_library.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"

namespace tessera::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Us(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// One two-stage call on `stream`; `events` (start, end) bracket the launch when given.
Status CallOnce(const runtime::OpCall& call, DeviceBuffers& buffers, const device::Stream& stream,
                const device::Event* events, runtime::PlanInfo* info) {
  uint64_t ws_size = 0;
  TESSERA_ASSIGN_OR_RETURN(std::unique_ptr<runtime::OpExecutor> exec,
                           runtime::PrepareOp(call, &ws_size));
  if (info != nullptr) *info = exec->info();
  TESSERA_ASSIGN_OR_RETURN(void* ws, buffers.Workspace(ws_size));
  if (events != nullptr) TESSERA_RETURN_IF_ERROR(events[0].Record(stream));
  TESSERA_RETURN_IF_ERROR(runtime::ExecuteOp(*exec, ws, ws_size, stream));
  if (events != nullptr) TESSERA_RETURN_IF_ERROR(events[1].Record(stream));
  return stream.Synchronize();
}

}  // namespace

Result<RunReport> RunOpCall(ResolvedCall& rc, int iters, uint32_t seed, bool keep_tensors) {
  if (iters < 1) return InvalidArgument("--iters must be >= 1, got " + std::to_string(iters));
  DeviceBuffers buffers;
  TESSERA_RETURN_IF_ERROR(buffers.Bind(rc.call));
  RunReport report;
  report.iters = iters;
  // The input domains come from the definition the call was resolved against.
  TESSERA_ASSIGN_OR_RETURN(const runtime::OpDef* resolved,
                           LoadPackageOpDef(rc.package_dir, rc.op.op));
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < rc.call.inputs.size(); ++i) {
    const auto& arg = rc.call.inputs[i];
    if (!arg) continue;
    HostTensor& t = inputs.emplace_back(arg->desc);
    FillRandom(i < resolved->inputs().size() ? &resolved->inputs()[i] : nullptr, i, seed, t);
    if (!t.bytes().empty()) {
      TESSERA_RETURN_IF_ERROR(device::Memcpy(arg->address, t.bytes().size(), t.bytes().data(),
                                             t.bytes().size(), device::MemcpyKind::kHostToDevice));
    }
    report.bytes += t.bytes().size();
  }
  for (const auto& out : rc.call.outputs)
    report.bytes += static_cast<uint64_t>(out.desc.StorageBytes().value_or(0));

  TESSERA_ASSIGN_OR_RETURN(device::Stream stream, device::Stream::Create());
  const runtime::RuntimeStats s0 = runtime::GetRuntimeStats();
  auto t0 = Clock::now();
  TESSERA_RETURN_IF_ERROR(CallOnce(rc.call, buffers, stream, nullptr, &report.plan));
  report.cold_us = Us(t0, Clock::now());
  const runtime::RuntimeStats s1 = runtime::GetRuntimeStats();
  report.cold_cache_hit = s1.cache.hits > s0.cache.hits;

  TESSERA_ASSIGN_OR_RETURN(device::Event start, device::Event::Create());
  TESSERA_ASSIGN_OR_RETURN(device::Event end, device::Event::Create());
  const device::Event events[2] = {start, end};
  std::vector<double> call_us, kernel_us;
  for (int i = 0; i < iters; ++i) {
    t0 = Clock::now();
    TESSERA_RETURN_IF_ERROR(CallOnce(rc.call, buffers, stream, events, nullptr));
    call_us.push_back(Us(t0, Clock::now()));
    TESSERA_ASSIGN_OR_RETURN(const float ms, device::Event::ElapsedMs(start, end));
    kernel_us.push_back(1000.0 * ms);
  }
  const runtime::RuntimeStats s2 = runtime::GetRuntimeStats();
  report.hits = s2.cache.hits - s1.cache.hits;
  report.tiling_calls = s2.tiling_calls - s1.tiling_calls;
  report.median_us = Median(call_us);
  report.kernel_median_us = Median(kernel_us);
  report.gbps =
      report.median_us > 0 ? static_cast<double>(report.bytes) / (report.median_us * 1e3) : 0;

  TESSERA_ASSIGN_OR_RETURN(const runtime::OpDef* def,
                           LoadPackageOpDef(report.plan.package_dir, rc.op.op));
  const bool has_reference = static_cast<bool>(def->reference());
  if (!has_reference && !keep_tensors) return report;
  std::vector<HostTensor> outputs;
  for (const runtime::TensorArg& out : rc.call.outputs) {
    HostTensor& y = outputs.emplace_back(out.desc);
    if (!y.bytes().empty()) {
      TESSERA_RETURN_IF_ERROR(device::Memcpy(y.bytes().data(), y.bytes().size(), out.address,
                                             y.bytes().size(), device::MemcpyKind::kDeviceToHost));
    }
  }
  if (has_reference) {
    TESSERA_ASSIGN_OR_RETURN(report.check, CheckAgainstOpReference(*def, rc.call, inputs, outputs));
  }
  if (keep_tensors) {
    report.inputs = std::move(inputs);
    report.outputs = std::move(outputs);
  }
  return report;
}

}  // namespace tessera::cli
