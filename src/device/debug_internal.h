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
struct TracedBlock {
  uint32_t block_idx;
  CoreType core;
  int64_t begin_ns;
  int64_t end_ns;
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
