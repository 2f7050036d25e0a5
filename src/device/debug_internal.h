// Internals of the debugging aids (debug.h): per-launch print buffers, the trace recorder and the
// watchdog's registry of running launches.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/debug.h"
#include "tessera/device/pipe_phase.h"

namespace tessera::device::detail {

class LaunchJob;

// What the blocks of one launch printed; created at the launch's first print. Each block appends
// only to its own entry, so appending takes no lock; the launch-wide byte count is one atomic.
class LaunchPrints {
 public:
  explicit LaunchPrints(uint32_t blocks);
  void Append(uint32_t fiber, std::string_view text);
  // Writes every block's text to stdout in fiber order, each line prefixed; call after the last
  // block finished.
  void Flush(const LaunchJob& job) const;

 private:
  struct Entry {
    std::string text;
    uint64_t cut_by_block = 0;   // bytes dropped over the per-block limit
    uint64_t cut_by_launch = 0;  // bytes dropped over the per-launch limit
  };
  const PrintLimits limits_;
  std::vector<Entry> entries_;
  std::atomic<uint64_t> launch_bytes_{0};
};

// --- trace ---
// True while a trace file is open (one relaxed load).
bool TraceEnabled();

// Phases kept per block (TESSERA_TRACE_PHASE_LIMIT, read when the trace opens).
uint64_t TracePhaseLimit();

// One block's pipe phases (checked mode with a trace; tessera/device/pipe_phase.h), written only
// by the block and read when its launch is recorded.
class PhaseLog {
 public:
  struct Phase {
    int64_t begin_ns;
    int64_t end_ns;
    uint32_t calls;
    TracePipe pipe;
  };
  PhaseLog();
  // A call on `pipe` from begin_ns to end_ns: extends the last phase when it is on the same pipe,
  // else starts a phase (counted as dropped beyond the limit).
  void Add(TracePipe pipe, int64_t begin_ns, int64_t end_ns) noexcept;
  const std::vector<Phase>& phases() const { return phases_; }
  uint64_t dropped() const { return dropped_; }
  // Time inside calls on `pipe`, dropped phases included.
  int64_t busy_ns(TracePipe pipe) const { return busy_ns_[static_cast<int>(pipe)]; }
  uint32_t depth = 0;  // calls in progress (nested calls belong to the outermost)

 private:
  std::vector<Phase> phases_;
  int64_t busy_ns_[kTracePipeCount] = {};
  uint64_t dropped_ = 0;
  uint64_t limit_;
  bool has_last_ = false;   // the block made a call already
  bool last_kept_ = false;  // ... and its phase is phases_.back()
  TracePipe last_pipe_ = TracePipe::kMte2;
};

struct TracedBlock {
  uint32_t block_idx;
  CoreType core;
  int64_t begin_ns;
  int64_t end_ns;
  const PhaseLog* phases;  // null: none recorded (fast mode)
};
struct TracedLaunch {
  const std::string* name;
  uint32_t stream_id;
  uint32_t block_dim;
  KernelType type;
  uint64_t bytes_moved;
  bool failed;
  int64_t begin_ns;
  int64_t end_ns;
  const TracedBlock* blocks;
  uint32_t block_count;
};
void RecordLaunch(const TracedLaunch& launch);
// Called when a stream or the device was synchronised: writes pending events.
void TraceOnSynchronize();

// --- watchdog ---
double KernelTimeoutSeconds();  // 0: off
// Starts watching a launch (its blocks are about to run); Unwatch before the launch is destroyed.
void WatchLaunch(LaunchJob* job, int64_t start_ns);
void UnwatchLaunch(LaunchJob* job);

}  // namespace tessera::device::detail
