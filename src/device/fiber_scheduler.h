// Runs kernel blocks as Boost.Context fibers on one thread. A block that must wait (SyncAll, a
// cross-core flag) suspends its fiber; the thread then runs other blocks and resumes the waiter
// when its condition holds. Fibers never move between threads, so thread-local state stays valid.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::device::detail {

class Job;
struct FiberSlot;

// "counter has reached target, or the launch was aborted". Every wait in tessera has this shape,
// which lets a deadlock check read conditions of other fibers safely.
struct WaitCondition {
  const std::atomic<uint64_t>* counter = nullptr;
  uint64_t target = 0;
  const std::atomic<bool>* abort = nullptr;

  bool Ready() const {
    return counter->load(std::memory_order_acquire) >= target ||
           (abort && abort->load(std::memory_order_acquire));
  }
};

class FiberScheduler {
 public:
  explicit FiberScheduler(size_t stack_bytes);
  ~FiberScheduler();
  FiberScheduler(const FiberScheduler&) = delete;
  FiberScheduler& operator=(const FiberScheduler&) = delete;

  // Runs block `index` of `job` in a fiber until it finishes or suspends. A finished block is
  // reported with job->FinishBlock().
  void Start(Job* job, uint32_t index);
  // Resumes every suspended fiber whose condition holds; true if any was resumed.
  bool PollSuspended();
  bool HasSuspended() const { return !suspended_.empty(); }
  // Calls OnStall() on the jobs of suspended fibers.
  void ReportStall();

  // The scheduler of this thread (created for caller threads on demand).
  static FiberScheduler& ForThisThread();
  static void SetForThisThread(FiberScheduler* scheduler);

 private:
  FiberSlot* AcquireSlot();
  void Resume(FiberSlot* slot);
  // Returns a finished fiber to the idle list, or destroys it when enough are idle.
  void Retire(FiberSlot* slot);

  size_t stack_bytes_;
  std::vector<std::unique_ptr<FiberSlot>> slots_;
  std::vector<FiberSlot*> idle_;
  std::vector<FiberSlot*> suspended_;
};

// Inside a fiber: returns when cond.Ready(). Outside a fiber it spins (never expected).
void SuspendCurrentFiber(const WaitCondition& cond);
bool InFiber();
// Inside a fiber: suspends once so the thread runs its other fibers and starts queued blocks, then
// returns. For waits on conditions the scheduler cannot watch (a value in GM another block writes).
// Outside a fiber it yields the thread.
void YieldCurrentFiber();

// Default fiber stack size (TESSERA_FIBER_STACK_KB, default 256 KiB; 1 MiB under sanitizers).
size_t DefaultFiberStackBytes();

}  // namespace tessera::device::detail
