// A recycling pool of fixed-size blocks for the objects every call or launch makes.
#pragma once

#include <cstddef>
#include <mutex>
#include <new>

namespace tessera::device::detail {

// Freed blocks of one type's size, for objects made once per call or launch (executors, launch
// payloads, launch jobs): each thread keeps a few of its own (no lock when a call's blocks are made
// and freed on one thread), the rest go to a shared list threaded through their memory (at most
// 1024).
template <class T>
class BlockPool {
 public:
  static void* Take(size_t size) {
    if (size == sizeof(T)) {
      Local& local = ThreadLocal();
      if (local.count > 0) return local.blocks[--local.count];
      Shared& shared = TheShared();
      std::lock_guard<std::mutex> lock(shared.mu);
      if (shared.head != nullptr) {
        void* p = shared.head;
        shared.head = *static_cast<void**>(p);
        --shared.count;
        return p;
      }
    }
    return ::operator new(size);
  }
  static void Give(void* p, size_t size) {
    if (p != nullptr && size == sizeof(T)) {
      Local& local = ThreadLocal();
      if (local.count < kLocalBlocks) {
        local.blocks[local.count++] = p;
        return;
      }
      GiveShared(p);
      return;
    }
    ::operator delete(p);
  }

 private:
  static constexpr size_t kLocalBlocks = 8;
  struct Shared {
    std::mutex mu;
    void* head = nullptr;
    size_t count = 0;
  };
  struct Local {
    void* blocks[kLocalBlocks];
    size_t count = 0;
    ~Local() {  // the thread ends: its blocks go to the shared list
      while (count > 0)
        GiveShared(blocks[--count]);
    }
  };
  static Shared& TheShared() {
    static Shared* shared = new Shared();  // immortal: launches may end after main
    return *shared;
  }
  static Local& ThreadLocal() {
    thread_local Local local;
    return local;
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
