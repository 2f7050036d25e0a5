// Pipe phases of checked, traced launches (tessera/device/pipe_phase.h): each block keeps its own
// log, so recording takes no lock.
#include "tessera/device/pipe_phase.h"

#include <new>

#include "block_state.h"
#include "debug_internal.h"
#include "launch_job.h"
#include "stream_impl.h"

namespace tessera::device {
namespace {

detail::PhaseLog* RunningPhaseLog() {
  const BlockContext* ctx = detail::CurrentBlockContext();
  if (ctx == nullptr || !ctx->checked || ctx->launch == nullptr) return nullptr;
  return ctx->launch->phase_log(ctx->fiber_index);
}

}  // namespace

namespace detail {

PhaseLog::PhaseLog() : limit_(TracePhaseLimit()) {}

void PhaseLog::Add(TracePipe pipe, int64_t begin_ns, int64_t end_ns) noexcept {
  busy_ns_[static_cast<int>(pipe)] += end_ns - begin_ns;
  if (has_last_ && last_pipe_ == pipe) {
    if (last_kept_) {
      phases_.back().end_ns = end_ns;
      ++phases_.back().calls;
    }
    return;
  }
  has_last_ = true;
  last_pipe_ = pipe;
  last_kept_ = phases_.size() < limit_;
  if (last_kept_) {
    try {
      phases_.push_back(Phase{begin_ns, end_ns, 1, pipe});
    } catch (const std::bad_alloc&) {
      last_kept_ = false;
    }
  }
  if (!last_kept_) ++dropped_;
}

}  // namespace detail

const char* TracePipeName(TracePipe pipe) {
  switch (pipe) {
    case TracePipe::kMte2:
      return "MTE2";
    case TracePipe::kMte1:
      return "MTE1";
    case TracePipe::kM:
      return "M";
    case TracePipe::kFix:
      return "FIX";
    case TracePipe::kV:
      return "V";
    case TracePipe::kMte3:
      return "MTE3";
    default:
      return "?";
  }
}

int64_t BeginPipeCall() {
  detail::PhaseLog* log = RunningPhaseLog();
  if (log == nullptr) return -1;
  ++log->depth;
  return detail::SteadyNowNs();
}

void EndPipeCall(TracePipe pipe, int64_t begin_ns) noexcept {
  detail::PhaseLog* log = RunningPhaseLog();
  if (log == nullptr || log->depth == 0) return;
  if (--log->depth == 0) log->Add(pipe, begin_ns, detail::SteadyNowNs());
}

}  // namespace tessera::device
