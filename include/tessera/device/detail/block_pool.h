// A recycling pool of fixed-size blocks for the objects every call or launch makes (device launch
// jobs; the runtime's executors and launch payloads).
#pragma once

#include <cstddef>
#include <mutex>
#include <new>

namespace tessera::device::detail {

// Freed blocks of one type's size, for objects made once per call or launch: each thread keeps a
// few of its own (no lock when a call's blocks are made and freed on one thread), the rest go to a
// shared list threaded through their memory (at most 1024).
//
// Thread exit: the thread's blocks go to the shared list when its Flusher is destroyed. Other
// thread_local objects may be destroyed after that and still free pooled objects; the per-thread
// state is trivially destructible (its storage outlives every destructor of the thread), and once
// flushed it sends every block straight to the shared list.
template <class T>
class BlockPool {
 public:
  static void* Take(size_t size) {
    if (size == sizeof(T)) {
      Local& local = ThreadLocal();
      if (local.count > 0) return local.blocks[--local.count];
      if (void* p = TakeShared()) return p;
    }
    return ::operator new(size);
  }
  static void Give(void* p, size_t size) {
    if (p == nullptr) return;
    if (size != sizeof(T)) {
      ::operator delete(p);
      return;
    }
    Local& local = ThreadLocal();
    if (!local.flushed && local.count < kLocalBlocks) {
      if (!local.registered) {
        local.registered = true;
        thread_local Flusher flusher;  // constructed here, so destroyed at this thread's exit
        (void)flusher;
      }
      local.blocks[local.count++] = p;
      return;
    }
    GiveShared(p);
  }

 private:
  static constexpr size_t kLocalBlocks = 8;
  struct Shared {
    std::mutex mu;
    void* head = nullptr;
    size_t count = 0;
  };
  struct Local {  // trivially destructible: usable during every thread_local destructor
    void* blocks[kLocalBlocks];
    size_t count;
    bool registered;  // the Flusher exists
    bool flushed;     // the Flusher ran: the thread is ending
  };
  struct Flusher {
    ~Flusher() {
      Local& local = ThreadLocal();
      local.flushed = true;
      while (local.count > 0)
        GiveShared(local.blocks[--local.count]);
    }
  };
  static Shared& TheShared() {
    static Shared* shared = new Shared();  // immortal: launches may end after main
    return *shared;
  }
  static Local& ThreadLocal() {
    thread_local constinit Local local{};
    return local;
  }
  static void* TakeShared() {
    Shared& shared = TheShared();
    std::lock_guard<std::mutex> lock(shared.mu);
    void* p = shared.head;
    if (p != nullptr) {
      shared.head = *static_cast<void**>(p);
      --shared.count;
    }
    return p;
  }
  static void GiveShared(void* p) {
    constexpr size_t kMaxPooled = 1024;
    Shared& shared = TheShared();
    {
      std::lock_guard<std::mutex> lock(shared.mu);
      if (shared.count < kMaxPooled) {
        *static_cast<void**>(p) = shared.head;
        shared.head = p;
        ++shared.count;
        return;
      }
    }
    ::operator delete(p);
  }
};

}  // namespace tessera::device::detail
