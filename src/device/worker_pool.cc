#include "worker_pool.h"

#include <algorithm>

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>

#include "fault_handler.h"
#include "fiber_scheduler.h"
#include "tessera/device/arch_spec.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::device::detail {
namespace {

thread_local bool tls_is_worker = false;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void PinToCpu(uint32_t worker) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  const int count = CPU_COUNT(&allowed);
  if (count <= 0) return;
  int want = static_cast<int>(worker % static_cast<uint32_t>(count));
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (want-- == 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      return;
    }
  }
}

uint32_t WorkerCountFromEnv() {
  if (const char* env = std::getenv("TESSERA_WORKERS")) {
    const long n = std::atol(env);
    if (n >= 1 && n <= 1024) return static_cast<uint32_t>(n);
  }
  return HardwareThreads();
}

}  // namespace

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

bool WorkerPool::OnWorkerThread() {
  return tls_is_worker;
}

WorkerPool& WorkerPool::Instance() {
  static WorkerPool* pool = new WorkerPool();  // immortal: workers outlive static destructors
  return *pool;
}

WorkerPool::WorkerPool() {
  spin_ns_ = 200'000;
  if (const char* env = std::getenv("TESSERA_SPIN_US")) spin_ns_ = std::atol(env) * 1000;
  if (const char* env = std::getenv("TESSERA_PIN")) pin_ = std::atoi(env) != 0;
  const uint32_t n = WorkerCountFromEnv();
  threads_.reserve(n);
  for (uint32_t i = 0; i < n; ++i)
    threads_.emplace_back([this, i] { WorkerMain(i); });
}

void WorkerPool::Submit(Job* job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    job->next_queued_ = nullptr;
    if (queue_tail_ != nullptr) {
      queue_tail_->next_queued_ = job;
    } else {
      queue_head_ = job;
    }
    queue_tail_ = job;
    queued_.fetch_add(1, std::memory_order_seq_cst);
  }
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  if (parked_.load(std::memory_order_seq_cst) > 0) epoch_.notify_all();
}

bool WorkerPool::TryTake(Job** job, uint32_t* index, uint32_t* count) {
  if (queued_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  Job* front = queue_head_;
  if (front == nullptr) return false;
  *job = front;
  *index = front->next_unassigned_;
  *count = std::min(front->take_unit_, front->total() - *index);
  front->next_unassigned_ += *count;
  if (front->next_unassigned_ == front->total()) {
    queue_head_ = front->next_queued_;
    if (queue_head_ == nullptr) queue_tail_ = nullptr;
    queued_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return true;
}

void WorkerPool::WorkerMain(uint32_t id) {
  tls_is_worker = true;
  {
    sigset_t all;  // signals go to the application's threads, not to workers
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGABRT);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
  }
  if (pin_) PinToCpu(id);
  InstallAlternateSignalStack();
  FiberScheduler scheduler(DefaultFiberStackBytes());
  FiberScheduler::SetForThisThread(&scheduler);

  int64_t idle_since = 0;
  uint32_t spins = 0;
  for (;;) {
    const uint32_t epoch = epoch_.load(std::memory_order_acquire);
    const bool resumed = scheduler.PollSuspended();
    Job* job = nullptr;
    uint32_t index = 0, count = 0;
    if (TryTake(&job, &index, &count)) {
      // The job may be destroyed by the last block's FinishBlock: the loop reads nothing of it
      // after starting (or running) its last block.
      for (uint32_t k = 0; k < count; ++k) {
        if (job->uses_fibers()) {
          scheduler.Start(job, index + k);
        } else {
          job->RunBlock(index + k);
          job->FinishBlock();
        }
      }
      idle_since = 0;
      continue;
    }
    if (resumed) {
      idle_since = 0;
      continue;
    }
    CpuRelax();
    if ((++spins & 63) != 0) continue;
    const int64_t now = NowNs();
    if (idle_since == 0) idle_since = now;
    if (scheduler.HasSuspended()) {
      // Waiting fibers: keep polling, but let other threads (maybe the blocks we wait for) run.
      sched_yield();
      if (now - idle_since > 50'000'000) {
        scheduler.ReportStall();
        idle_since = now;
      }
      continue;
    }
    if (now - idle_since < spin_ns_) {
      if ((spins & 1023) == 0) sched_yield();
      continue;
    }
    parked_.fetch_add(1, std::memory_order_seq_cst);
    if (queued_.load(std::memory_order_seq_cst) == 0) epoch_.wait(epoch, std::memory_order_acquire);
    parked_.fetch_sub(1, std::memory_order_seq_cst);
    idle_since = 0;
  }
}

}  // namespace tessera::device::detail
