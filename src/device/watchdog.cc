// The hang watchdog (TESSERA_KERNEL_TIMEOUT): a thread, started with the first watched launch, that
// reports and fails launches running longer than the timeout.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "debug_internal.h"
#include "launch_job.h"
#include "stream_impl.h"

namespace tessera::device {
namespace detail {
namespace {

double TimeoutFromEnv() {
  const char* env = std::getenv("TESSERA_KERNEL_TIMEOUT");
  if (env == nullptr || *env == '\0') return 0;
  char* end = nullptr;
  const double v = std::strtod(env, &end);
  return end && *end == '\0' && v > 0 ? v : 0;
}

std::atomic<double> g_timeout{TimeoutFromEnv()};

struct Registry {
  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<LaunchJob*, int64_t> running;  // launch -> start time (ns); reported ones gone
  bool thread_started = false;
};

Registry& Reg() {
  static auto* r = new Registry;  // never destroyed: the watchdog thread outlives main
  return *r;
}

void WatchdogMain() {
  Registry& reg = Reg();
  std::unique_lock<std::mutex> lock(reg.mu);
  for (;;) {
    const double timeout = g_timeout.load(std::memory_order_relaxed);
    const int64_t limit_ns = static_cast<int64_t>(timeout * 1e9);
    // Check a few times per timeout period, at most every 50 ms.
    const int64_t period_ns =
        std::min<int64_t>(limit_ns > 0 ? limit_ns / 4 : 50'000'000, 50'000'000);
    reg.cv.wait_for(lock, std::chrono::nanoseconds(std::max<int64_t>(period_ns, 1'000'000)));
    if (limit_ns <= 0) continue;
    const int64_t now = SteadyNowNs();
    for (auto it = reg.running.begin(); it != reg.running.end();) {
      if (now - it->second > limit_ns) {
        // Under the lock: the launch cannot finish unwatching, so it stays alive while reported.
        it->first->OnTimeout(timeout, static_cast<double>(now - it->second) * 1e-9);
        it = reg.running.erase(it);
      } else {
        ++it;
      }
    }
  }
}

}  // namespace

double KernelTimeoutSeconds() {
  return g_timeout.load(std::memory_order_relaxed);
}

void WatchLaunch(LaunchJob* job, int64_t start_ns) {
  Registry& reg = Reg();
  std::lock_guard<std::mutex> lock(reg.mu);
  reg.running.emplace(job, start_ns);
  if (!reg.thread_started) {
    reg.thread_started = true;
    std::thread(WatchdogMain).detach();
  }
}

void UnwatchLaunch(LaunchJob* job) {
  Registry& reg = Reg();
  std::lock_guard<std::mutex> lock(reg.mu);
  reg.running.erase(job);
}

}  // namespace detail

void SetKernelTimeout(double seconds) {
  detail::g_timeout.store(seconds > 0 ? seconds : 0, std::memory_order_relaxed);
  detail::Reg().cv.notify_all();
}

double GetKernelTimeout() {
  return detail::KernelTimeoutSeconds();
}

}  // namespace tessera::device
