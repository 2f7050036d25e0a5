// The persistent worker pool: one pinned thread per hardware thread, taking blocks from submitted
// jobs. Workers spin briefly when idle (a sleeping thread takes ~40 us to wake; a spinning one
// ~0.2 us) and then park on a futex.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tessera::device::detail {

// A unit of parallel work: `total` blocks, each run once by some worker.
class Job {
 public:
  // A worker takes `take_unit` consecutive blocks at a time (a MIX group: its AIC and AIVs), so the
  // blocks that wait on each other share one thread's fibers instead of being spread over threads.
  Job(uint32_t total_blocks, bool uses_fibers, uint32_t take_unit = 1)
      : total_(total_blocks),
        uses_fibers_(uses_fibers),
        take_unit_(take_unit == 0 ? 1 : take_unit) {}
  virtual ~Job() = default;

  // Runs one block; must not throw. Called in a fiber when uses_fibers().
  virtual void RunBlock(uint32_t index) = 0;
  // Called once, by whoever finishes the last block. May destroy the job.
  virtual void OnComplete() = 0;
  // Called by a worker whose suspended fibers of this job have made no progress for a while.
  virtual void OnStall() {}
  // Block `index` cannot run (no memory for its fiber); the job records why. The caller then
  // reports the block finished.
  virtual void AbandonBlock(uint32_t index, const std::string& why) {
    (void)index;
    (void)why;
  }

  void FinishBlock() {
    const uint32_t total = total_;  // once our increment lands, another thread may delete the job
    if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == total) OnComplete();
  }
  uint32_t total() const { return total_; }
  uint32_t finished() const { return finished_.load(std::memory_order_acquire); }
  bool uses_fibers() const { return uses_fibers_; }

 private:
  friend class WorkerPool;
  const uint32_t total_;
  const bool uses_fibers_;
  const uint32_t take_unit_;
  uint32_t next_unassigned_ = 0;  // guarded by the pool's queue mutex
  Job* next_queued_ = nullptr;    // the pool's queue is a list through its jobs (no allocation)
  std::atomic<uint32_t> finished_{0};
};

class WorkerPool {
 public:
  // Created on first use and never destroyed (workers may be running at process exit).
  static WorkerPool& Instance();

  // Hands the job's blocks to the workers. The job must stay alive until OnComplete.
  void Submit(Job* job);
  uint32_t size() const { return static_cast<uint32_t>(threads_.size()); }
  // True on a pool thread.
  static bool OnWorkerThread();

 private:
  WorkerPool();
  void WorkerMain(uint32_t id);
  // The next blocks [*index, *index + *count) of the oldest job (count <= its take unit).
  bool TryTake(Job** job, uint32_t* index, uint32_t* count);

  std::mutex mu_;
  Job* queue_head_ = nullptr;  // jobs with blocks not yet taken, oldest first
  Job* queue_tail_ = nullptr;
  std::atomic<uint32_t> queued_{0};
  std::atomic<uint32_t> epoch_{0};
  std::atomic<uint32_t> parked_{0};
  std::vector<std::thread> threads_;
  int64_t spin_ns_ = 0;
  bool pin_ = true;
};

// Pause instruction for spin loops.
void CpuRelax();

}  // namespace tessera::device::detail
