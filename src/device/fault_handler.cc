#include "fault_handler.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "block_state.h"

namespace tessera::device::detail {
namespace {

constexpr int kSlots = 8192;
enum SlotState : uint32_t { kFree = 0, kLive = 1, kFreed = 2, kWriting = 3 };

struct Slot {
  std::atomic<uint32_t> state{kFree};
  GuardRecord record;
};

Slot g_slots[kSlots];
struct sigaction g_previous_segv;
struct sigaction g_previous_bus;

void Chain(int sig, siginfo_t* info, void* uctx) {
  const struct sigaction& prev = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
    prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: returning re-executes the faulting access, which now kills the process.
  signal(sig, SIG_DFL);
}

void OnFault(int sig, siginfo_t* info, void* uctx) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0; i < kSlots; ++i) {
    const uint32_t state = g_slots[i].state.load(std::memory_order_acquire);
    if (state != kLive && state != kFreed) continue;
    const GuardRecord& r = g_slots[i].record;
    if (addr < r.region_begin || addr >= r.region_end) continue;

    char who[256];
    const BlockContext* block = CurrentBlockContext();
    if (block) {
      std::snprintf(who, sizeof(who), "kernel '%s' block %u (%s)", block->kernel_name,
                    block->block_idx, CoreTypeName(block->core_type));
    } else {
      std::snprintf(who, sizeof(who), "host code");
    }
    char what[256];
    if (state == kFreed) {
      std::snprintf(what, sizeof(what),
                    "inside allocation #%llu after it was freed (use after free)",
                    static_cast<unsigned long long>(r.id));
    } else if (addr >= r.data + r.size) {
      std::snprintf(what, sizeof(what), "%llu bytes past the end of allocation #%llu",
                    static_cast<unsigned long long>(addr - (r.data + r.size)),
                    static_cast<unsigned long long>(r.id));
    } else {
      std::snprintf(what, sizeof(what), "%llu bytes before the start of allocation #%llu",
                    static_cast<unsigned long long>(r.data - addr),
                    static_cast<unsigned long long>(r.id));
    }
    char message[768];
    const int len = std::snprintf(
        message, sizeof(message),
        "tessera checked mode: %s accessed address %p, %s (%llu bytes at %p): guard page hit\n",
        who, info->si_addr, what, static_cast<unsigned long long>(r.size),
        reinterpret_cast<void*>(r.data));
    if (len > 0) {
      ssize_t ignored = write(STDERR_FILENO, message, static_cast<size_t>(len));
      (void)ignored;
    }
    signal(sig, SIG_DFL);
    return;
  }
  Chain(sig, info, uctx);
}

}  // namespace

void InstallFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = OnFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_segv);
    sigaction(SIGBUS, &action, &g_previous_bus);
  });
}

int RegisterGuard(const GuardRecord& record) {
  for (int i = 0; i < kSlots; ++i) {
    uint32_t expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kWriting, std::memory_order_acq_rel)) {
      g_slots[i].record = record;
      g_slots[i].state.store(kLive, std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void MarkGuardFreed(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFreed, std::memory_order_release);
}

void UnregisterGuard(int slot) {
  if (slot >= 0) g_slots[slot].state.store(kFree, std::memory_order_release);
}

void InstallAlternateSignalStack() {
  const size_t bytes = 64 * 1024;
  stack_t ss{};
  // Mapped, not malloc'ed: it lives as long as the (immortal) worker thread, and no pointer to it
  // is kept anywhere a leak checker would look.
  void* stack = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return;
  ss.ss_sp = stack;
  ss.ss_size = bytes;
  sigaltstack(&ss, nullptr);
}

}  // namespace tessera::device::detail
