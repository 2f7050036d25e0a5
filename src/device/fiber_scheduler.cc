#include "fiber_scheduler.h"

#include <sched.h>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <cstdlib>
#include <exception>
#include <utility>

#include "block_state.h"
#include "worker_pool.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define TESSERA_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define TESSERA_TSAN 1
#endif

namespace ctx = boost::context;

namespace tessera::device::detail {

struct FiberSlot {
  enum class State { kIdle, kRunning, kSuspended, kFinished };

  ctx::fiber fiber;  // the fiber, while it is not running
  ctx::fiber back;   // the scheduler, while the fiber runs
  State state = State::kIdle;
  bool shutdown = false;
  Job* job = nullptr;
  uint32_t index = 0;
  const WaitCondition* wait = nullptr;
  // Sanitizer bookkeeping: this fiber's stack and the scheduler's.
  const void* stack_bottom = nullptr;
  size_t stack_size = 0;
  const void* sched_bottom = nullptr;
  size_t sched_size = 0;
  void* fake_stack = nullptr;
  void* tsan_fiber = nullptr;
  void* tsan_sched = nullptr;
};

namespace {

thread_local FiberSlot* tls_slot = nullptr;
thread_local FiberScheduler* tls_scheduler = nullptr;
thread_local std::unique_ptr<FiberScheduler> tls_owned_scheduler;

// Records the stack bounds for the sanitizers.
class RecordingStack {
 public:
  RecordingStack(size_t bytes, FiberSlot* slot) : inner_(bytes), slot_(slot) {}
  ctx::stack_context allocate() {
    ctx::stack_context sc = inner_.allocate();
    slot_->stack_bottom = static_cast<char*>(sc.sp) - sc.size;
    slot_->stack_size = sc.size;
    return sc;
  }
  void deallocate(ctx::stack_context& sc) noexcept { inner_.deallocate(sc); }

 private:
  ctx::protected_fixedsize_stack inner_;
  FiberSlot* slot_;
};

// Fiber side of a switch back to the scheduler.
void SwitchToScheduler(FiberSlot* slot) {
#ifdef TESSERA_ASAN
  __sanitizer_start_switch_fiber(&slot->fake_stack, slot->sched_bottom, slot->sched_size);
#endif
#ifdef TESSERA_TSAN
  __tsan_switch_to_fiber(slot->tsan_sched, 0);
#endif
  slot->back = std::move(slot->back).resume();
#ifdef TESSERA_ASAN
  __sanitizer_finish_switch_fiber(slot->fake_stack, &slot->sched_bottom, &slot->sched_size);
#endif
}

ctx::fiber FiberMain(FiberSlot* slot, ctx::fiber&& back) {
  slot->back = std::move(back);
#ifdef TESSERA_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &slot->sched_bottom, &slot->sched_size);
#endif
  while (!slot->shutdown) {
    slot->job->RunBlock(slot->index);
    slot->state = FiberSlot::State::kFinished;
    SwitchToScheduler(slot);
  }
#ifdef TESSERA_ASAN
  __sanitizer_start_switch_fiber(nullptr, slot->sched_bottom, slot->sched_size);
#endif
#ifdef TESSERA_TSAN
  __tsan_switch_to_fiber(slot->tsan_sched, 0);
#endif
  return std::move(slot->back);
}

}  // namespace

size_t DefaultFiberStackBytes() {
#if defined(TESSERA_ASAN) || defined(TESSERA_TSAN)
  size_t bytes = size_t{1} << 20;
#else
  size_t bytes = size_t{256} << 10;
#endif
  if (const char* env = std::getenv("TESSERA_FIBER_STACK_KB")) {
    const long kb = std::atol(env);
    if (kb >= 64) bytes = static_cast<size_t>(kb) << 10;
  }
  return bytes;
}

FiberScheduler::FiberScheduler(size_t stack_bytes) : stack_bytes_(stack_bytes) {}

FiberScheduler::~FiberScheduler() {
  // Idle fibers sit in FiberMain's loop; let each return normally so its stack unwinds cleanly.
  for (FiberSlot* slot : idle_) {
    if (!slot->fiber) continue;
    slot->shutdown = true;
    Resume(slot);
  }
#ifdef TESSERA_TSAN
  for (auto& slot : slots_) {
    if (slot->tsan_fiber) __tsan_destroy_fiber(slot->tsan_fiber);
  }
#endif
}

FiberSlot* FiberScheduler::AcquireSlot() {
  if (!idle_.empty()) {
    FiberSlot* slot = idle_.back();
    idle_.pop_back();
    return slot;
  }
  auto owned = std::make_unique<FiberSlot>();
  FiberSlot* slot = owned.get();
  slot->fiber = ctx::fiber(std::allocator_arg, RecordingStack(stack_bytes_, slot),
                           [slot](ctx::fiber&& back) { return FiberMain(slot, std::move(back)); });
#ifdef TESSERA_TSAN
  slot->tsan_fiber = __tsan_create_fiber(0);
#endif
  slots_.push_back(std::move(owned));
  return slot;
}

void FiberScheduler::Resume(FiberSlot* slot) {
  FiberSlot* outer = tls_slot;
  tls_slot = slot;
  slot->state = FiberSlot::State::kRunning;
#ifdef TESSERA_TSAN
  slot->tsan_sched = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(slot->tsan_fiber, 0);
#endif
#ifdef TESSERA_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, slot->stack_bottom, slot->stack_size);
#endif
  slot->fiber = std::move(slot->fiber).resume();
#ifdef TESSERA_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  tls_slot = outer;
  // Switching fibers changes which block is "current"; the scheduler itself runs no block.
  SetCurrentBlockContext(nullptr);
}

void FiberScheduler::Start(Job* job, uint32_t index) {
  FiberSlot* slot = nullptr;
  try {
    slot = AcquireSlot();
  } catch (const std::exception& e) {  // no memory for another fiber stack
    job->AbandonBlock(index, e.what());
    job->FinishBlock();
    return;
  }
  slot->job = job;
  slot->index = index;
  Resume(slot);
  if (slot->state == FiberSlot::State::kFinished) {
    slot->job = nullptr;
    Retire(slot);
    job->FinishBlock();
  } else {
    suspended_.push_back(slot);
  }
}

void FiberScheduler::Retire(FiberSlot* slot) {
  // Keep a bounded number of idle fibers: a launch that once suspended thousands of blocks must
  // not pin their stacks forever.
  constexpr size_t kMaxIdleFibers = 64;
  if (idle_.size() < kMaxIdleFibers) {
    idle_.push_back(slot);
    return;
  }
  slot->shutdown = true;
  Resume(slot);  // FiberMain returns; the fiber's stack is released with the slot
  for (auto it = slots_.begin(); it != slots_.end(); ++it) {
    if (it->get() == slot) {
#ifdef TESSERA_TSAN
      __tsan_destroy_fiber(slot->tsan_fiber);
#endif
      slots_.erase(it);
      break;
    }
  }
}

bool FiberScheduler::PollSuspended() {
  bool resumed = false;
  for (size_t i = 0; i < suspended_.size();) {
    FiberSlot* slot = suspended_[i];
    if (!slot->wait->Ready()) {
      ++i;
      continue;
    }
    resumed = true;
    slot->wait = nullptr;
    Resume(slot);
    if (slot->state == FiberSlot::State::kSuspended) {
      ++i;
      continue;
    }
    suspended_[i] = suspended_.back();
    suspended_.pop_back();
    Job* job = slot->job;
    slot->job = nullptr;
    Retire(slot);
    job->FinishBlock();
  }
  return resumed;
}

void FiberScheduler::ReportStall() {
  Job* last = nullptr;
  for (size_t i = 0; i < suspended_.size(); ++i) {
    Job* job = suspended_[i]->job;
    if (job != last) job->OnStall();
    last = job;
    // OnStall may abort the job, which makes its waits ready; the poll loop resumes them.
  }
}

FiberScheduler& FiberScheduler::ForThisThread() {
  if (tls_scheduler == nullptr) {
    tls_owned_scheduler = std::make_unique<FiberScheduler>(DefaultFiberStackBytes());
    tls_scheduler = tls_owned_scheduler.get();
  }
  return *tls_scheduler;
}

void FiberScheduler::SetForThisThread(FiberScheduler* scheduler) {
  tls_scheduler = scheduler;
}

bool InFiber() {
  return tls_slot != nullptr;
}

void SuspendCurrentFiber(const WaitCondition& cond) {
  if (cond.Ready()) return;
  FiberSlot* slot = tls_slot;
  if (slot == nullptr) {
    while (!cond.Ready())
      CpuRelax();
    return;
  }
  // The block context is thread-local and other fibers replace it while this one sleeps.
  BlockContext* mine = CurrentBlockContext();
  slot->wait = &cond;
  slot->state = FiberSlot::State::kSuspended;
  SwitchToScheduler(slot);
  SetCurrentBlockContext(mine);
}

void YieldCurrentFiber() {
  FiberSlot* slot = tls_slot;
  if (slot == nullptr) {
    sched_yield();
    return;
  }
  // A condition that is always ready: the next poll resumes this fiber.
  static const std::atomic<uint64_t> kZero{0};
  static const WaitCondition kAlwaysReady{&kZero, 0, nullptr};
  BlockContext* mine = CurrentBlockContext();
  slot->wait = &kAlwaysReady;
  slot->state = FiberSlot::State::kSuspended;
  SwitchToScheduler(slot);
  SetCurrentBlockContext(mine);
}

}  // namespace tessera::device::detail
