#include "tessera/device/device.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>

#include "runtime_state.h"
#include "stream_impl.h"
#include "worker_pool.h"

namespace tessera::device {
namespace detail {
namespace {

struct ProfileState {
  std::mutex mu;
  std::deque<ArchSpec> profiles;  // never shrinks: references handed out stay valid
  std::atomic<const ArchSpec*> active{nullptr};
};

ProfileState& Profiles() {
  static ProfileState* state = new ProfileState();
  return *state;
}

std::atomic<bool>& CheckedFlag() {
  static std::atomic<bool> flag{[] {
    const char* env = std::getenv("TESSERA_CHECK");
    return env != nullptr && std::strcmp(env, "0") != 0 && env[0] != '\0';
  }()};
  return flag;
}

}  // namespace

std::atomic<int64_t>& InFlightOps() {
  static std::atomic<int64_t> count{0};
  return count;
}

const ArchSpec& ActiveArch() {
  ProfileState& state = Profiles();
  if (const ArchSpec* arch = state.active.load(std::memory_order_acquire)) return *arch;
  std::lock_guard<std::mutex> lock(state.mu);
  if (const ArchSpec* arch = state.active.load(std::memory_order_acquire)) return *arch;
  const char* env = std::getenv("TESSERA_PROFILE");
  Result<ArchSpec> spec = FindProfile(env && env[0] ? env : "native");
  if (!spec.ok()) spec = FindProfile("native");  // unknown TESSERA_PROFILE: fall back, don't crash
  state.profiles.push_back(*spec);
  state.active.store(&state.profiles.back(), std::memory_order_release);
  return state.profiles.back();
}

}  // namespace detail

const ArchSpec& CurrentArch() {
  return detail::ActiveArch();
}

Status SetProfile(std::string_view name) {
  TESSERA_ASSIGN_OR_RETURN(ArchSpec spec, FindProfile(name));
  if (detail::InFlightOps().load() != 0) {
    return FailedPrecondition("SetProfile('" + std::string(name) +
                              "'): device work is in flight; synchronize all streams first");
  }
  detail::ActiveArch();  // make sure the environment's choice is not applied after ours
  auto& state = detail::Profiles();
  std::lock_guard<std::mutex> lock(state.mu);
  state.profiles.push_back(std::move(spec));
  state.active.store(&state.profiles.back(), std::memory_order_release);
  return OkStatus();
}

bool CheckedMode() {
  return detail::CheckedFlag().load(std::memory_order_relaxed);
}
void SetCheckedMode(bool enabled) {
  detail::CheckedFlag().store(enabled);
}

uint32_t WorkerThreads() {
  return detail::WorkerPool::Instance().size();
}

Status DeviceSynchronize() {
  return detail::SynchronizeAllStreams();
}

}  // namespace tessera::device
