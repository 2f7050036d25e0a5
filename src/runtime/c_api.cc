// The C API over the device layer and tensor descriptions. Every entry point catches everything:
// no exception crosses into C.
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "c_api_internal.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/tessera_nn.h"

namespace tessera::c_api {
namespace {
thread_local std::string tls_last_error;
}  // namespace

namespace {

// Allocates one node at a time from a free list threaded through freed nodes, so the handle
// registry allocates nothing once it has held as many handles as it holds now. Every allocation
// happens under the registry's exclusive lock.
template <class T>
struct RecyclingAllocator {
  using value_type = T;
  RecyclingAllocator() = default;
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    void*& head = FreeList();
    if (n == 1 && head != nullptr) {
      void* p = head;
      head = *static_cast<void**>(p);
      return static_cast<T*>(p);
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1 && sizeof(T) >= sizeof(void*)) {
      void*& head = FreeList();
      *reinterpret_cast<void**>(p) = head;
      head = p;
      return;
    }
    ::operator delete(p);
  }
  static void*& FreeList() {
    static void* head = nullptr;
    return head;
  }
  friend bool operator==(const RecyclingAllocator&, const RecyclingAllocator&) { return true; }
};

struct HandleRegistry {
  std::shared_mutex mu;
  std::unordered_map<const void*, HandleKind, std::hash<const void*>, std::equal_to<const void*>,
                     RecyclingAllocator<std::pair<const void* const, HandleKind>>>
      live;
  // Tensor handles unregistered so far (bumped under `mu`): a thread's record of tensors it found
  // live holds while this has not changed.
  std::atomic<uint64_t> tensor_epoch{0};
  static constexpr size_t kQuarantine = 1024;
  // Under `mu` (exclusive) too. Destroyed handles' memory, a ring: the oldest at `retired_head`.
  std::array<std::pair<void*, size_t>, kQuarantine> retired{};
  size_t retired_head = 0;
  size_t retired_count = 0;
};

HandleRegistry& Handles() {
  static HandleRegistry* registry = new HandleRegistry();  // immortal: handles outlive main
  return *registry;
}

}  // namespace

const char* HandleKindName(HandleKind kind) {
  switch (kind) {
    case HandleKind::kStream:
      return "stream";
    case HandleKind::kEvent:
      return "event";
    case HandleKind::kTensor:
      return "tensor";
    case HandleKind::kExecutor:
      return "executor";
    case HandleKind::kWorkspacePool:
      return "workspace pool";
    default:
      return "handle";
  }
}

void RegisterHandle(HandleKind kind, const void* handle) {
  HandleRegistry& r = Handles();
  std::unique_lock lock(r.mu);
  r.live[handle] = kind;
}

bool UnregisterHandle(HandleKind kind, const void* handle) {
  HandleRegistry& r = Handles();
  std::unique_lock lock(r.mu);
  const auto it = r.live.find(handle);
  if (it == r.live.end() || it->second != kind) return false;
  r.live.erase(it);
  if (kind == HandleKind::kTensor)
    r.tensor_epoch.store(r.tensor_epoch.load(std::memory_order_relaxed) + 1,
                         std::memory_order_release);
  return true;
}

void DeferFree(void* memory, size_t size) {
  HandleRegistry& r = Handles();
  std::pair<void*, size_t> oldest{nullptr, 0};
  {
    std::unique_lock lock(r.mu);
    if (r.retired_count == HandleRegistry::kQuarantine) {
      oldest = r.retired[r.retired_head];
      r.retired[r.retired_head] = {memory, size};
      r.retired_head = (r.retired_head + 1) % HandleRegistry::kQuarantine;
    } else {
      r.retired[(r.retired_head + r.retired_count) % HandleRegistry::kQuarantine] = {memory, size};
      ++r.retired_count;
    }
  }
  if (oldest.first != nullptr) ::operator delete(oldest.first, oldest.second);
}

namespace {

struct alignas(16) ExecutorSlot {
  alignas(8) unsigned char object[kExecutorHandleBytes];
  std::atomic<uint32_t> live{0};
};

// A lock for the arena's few-instruction sections: cheaper than a mutex when uncontended, and a
// holder preempted mid-section costs a waiter yields, not a lost time slice.
class SpinLock {
 public:
  void lock() {
    while (held_.exchange(true, std::memory_order_acquire)) {
      while (held_.load(std::memory_order_relaxed))
        std::this_thread::yield();
    }
  }
  void unlock() { held_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> held_{false};
};

class ExecutorArena {
 public:
  static constexpr size_t kSlotsPerChunk = 4096;
  static constexpr size_t kMaxChunks = 1024;  // 4M executors alive at once

  void* New() {
    std::lock_guard<SpinLock> lock(mu_);
    if (free_count_ > kExecutorQuarantine) {
      ExecutorSlot* slot = ring_[free_head_];
      free_head_ = (free_head_ + 1) % ring_.size();
      --free_count_;
      return slot;
    }
    size_t chunks = chunk_count_.load(std::memory_order_relaxed);
    if (carved_ == kSlotsPerChunk || chunks == 0) {
      if (chunks == kMaxChunks) return nullptr;
      // Growth only: the ring holds every slot, so a push never needs room.
      std::vector<ExecutorSlot*> ring((chunks + 1) * kSlotsPerChunk);
      for (size_t i = 0; i < free_count_; ++i)
        ring[i] = ring_[(free_head_ + i) % ring_.size()];
      ring_ = std::move(ring);
      free_head_ = 0;
      chunks_[chunks].store(new ExecutorSlot[kSlotsPerChunk], std::memory_order_release);
      chunk_count_.store(++chunks, std::memory_order_release);
      carved_ = 0;
    }
    return &chunks_[chunks - 1].load(std::memory_order_relaxed)[carved_++];
  }

  // The slot `handle` is (null when it is not one), without reading memory outside the arena.
  ExecutorSlot* Slot(const void* handle) const {
    const auto p = reinterpret_cast<uintptr_t>(handle);
    const size_t chunks = chunk_count_.load(std::memory_order_acquire);
    for (size_t i = 0; i < chunks; ++i) {
      const auto base = reinterpret_cast<uintptr_t>(chunks_[i].load(std::memory_order_acquire));
      if (p >= base && p < base + kSlotsPerChunk * sizeof(ExecutorSlot) &&
          (p - base) % sizeof(ExecutorSlot) == 0) {
        return reinterpret_cast<ExecutorSlot*>(p);
      }
    }
    return nullptr;
  }

  void Free(ExecutorSlot* slot) {
    std::lock_guard<SpinLock> lock(mu_);
    ring_[(free_head_ + free_count_) % ring_.size()] = slot;
    ++free_count_;
  }

 private:
  std::array<std::atomic<ExecutorSlot*>, kMaxChunks> chunks_{};
  std::atomic<size_t> chunk_count_{0};
  SpinLock mu_;
  size_t carved_ = 0;  // slots of the last chunk handed out so far
  // Destroyed slots, oldest first, from free_head_.
  std::vector<ExecutorSlot*> ring_;
  size_t free_head_ = 0;
  size_t free_count_ = 0;
};

ExecutorArena& Executors() {
  static ExecutorArena* arena = new ExecutorArena();  // immortal: handles outlive main
  return *arena;
}

}  // namespace

void* NewExecutorHandle() {
  return Executors().New();
}

void PublishExecutorHandle(void* handle) {
  static_cast<ExecutorSlot*>(handle)->live.store(1, std::memory_order_release);
}

bool IsLiveExecutor(const void* handle) {
  const ExecutorSlot* slot = Executors().Slot(handle);
  return slot != nullptr && slot->live.load(std::memory_order_acquire) == 1;
}

bool EndExecutorHandle(const void* handle, void (*destroy)(void* handle)) {
  ExecutorArena& arena = Executors();
  ExecutorSlot* slot = arena.Slot(handle);
  if (slot == nullptr || slot->live.exchange(0, std::memory_order_acq_rel) != 1) return false;
  destroy(slot);
  arena.Free(slot);
  return true;
}

uint64_t TensorEpoch() {
  return Handles().tensor_epoch.load(std::memory_order_acquire);
}

namespace {

// Tensors this thread found live while no tensor was destroyed (tensor_epoch unchanged): a call
// with the same tensors checks them without the registry's lock. Trivially destructible.
struct SeenTensors {
  static constexpr size_t kSize = 16;
  uint64_t epoch = ~uint64_t{0};
  const void* handles[kSize] = {};
  size_t next = 0;
  bool Has(const void* handle) const {
    for (const void* h : handles) {
      if (h == handle) return true;
    }
    return false;
  }
};
thread_local SeenTensors tls_seen;

}  // namespace

bool AllLive(HandleKind kind, const void* const* handles, size_t count) {
  HandleRegistry& r = Handles();
  SeenTensors* seen = nullptr;
  uint64_t epoch = 0;
  if (kind == HandleKind::kTensor) {
    seen = &tls_seen;
    epoch = r.tensor_epoch.load(std::memory_order_acquire);  // before the check below
    if (seen->epoch == epoch) {
      size_t i = 0;
      while (i < count && (handles[i] == nullptr || seen->Has(handles[i])))
        ++i;
      if (i == count) return true;
    } else {
      *seen = SeenTensors();
      seen->epoch = epoch;
    }
  }
  std::shared_lock lock(r.mu);
  for (size_t i = 0; i < count; ++i) {
    if (handles[i] == nullptr) continue;
    const auto it = r.live.find(handles[i]);
    if (it == r.live.end() || it->second != kind) return false;
  }
  if (seen != nullptr) {
    for (size_t i = 0; i < count; ++i) {
      if (handles[i] == nullptr || seen->Has(handles[i])) continue;
      seen->handles[seen->next] = handles[i];
      seen->next = (seen->next + 1) % SeenTensors::kSize;
    }
  }
  return true;
}

Status CheckHandle(const char* api, const char* what, HandleKind kind, const void* handle) {
  if (handle == nullptr) {
    return InvalidArgument(std::string(api) + ": " + what + " is NULL");
  }
  if (kind == HandleKind::kExecutor && IsLiveExecutor(handle)) return OkStatus();
  HandleRegistry& r = Handles();
  std::optional<HandleKind> found;
  {
    std::shared_lock lock(r.mu);
    const auto it = r.live.find(handle);
    if (it != r.live.end()) found = it->second;
  }
  if (!found && IsLiveExecutor(handle)) found = HandleKind::kExecutor;
  if (found == kind) return OkStatus();
  char address[32];
  std::snprintf(address, sizeof(address), "%p", handle);
  if (found) {
    const auto a = [](HandleKind k) {
      return std::string(k == HandleKind::kEvent || k == HandleKind::kExecutor ? "an " : "a ") +
             HandleKindName(k);
    };
    return InvalidArgument(std::string(api) + ": " + what + " " + address + " is " + a(*found) +
                           ", not " + a(kind));
  }
  return InvalidArgument(std::string(api) + ": " + what + " " + address + " is not a live " +
                         HandleKindName(kind) +
                         " (already destroyed, or not created by this library)");
}

tsrStatus Report(const Status& status) {
  if (status.ok()) return TSR_SUCCESS;
  tls_last_error = std::string(status.message());
  return static_cast<tsrStatus>(status.code());
}

}  // namespace tessera::c_api

namespace {

using tessera::c_api::CheckHandle;
using tessera::c_api::Guard;
using tessera::c_api::HandleKind;
using tessera::c_api::Report;
using tessera::c_api::StreamOf;

tsrStatus Fail(tessera::StatusCode code, std::string message) {
  return Report(tessera::Status(code, std::move(message)));
}

}  // namespace

extern "C" {

const char* tsrGetLastErrorMessage(void) {
  return tessera::c_api::tls_last_error.c_str();
}

tsrStatus tsrSetProfile(const char* name) {
  return Guard("tsrSetProfile", [&] {
    if (name == nullptr) return tessera::InvalidArgument("tsrSetProfile: name is NULL");
    return tessera::device::SetProfile(name);
  });
}

tsrStatus tsrSetCheckedMode(int enabled) {
  tessera::device::SetCheckedMode(enabled != 0);
  return TSR_SUCCESS;
}

tsrStatus tsrSynchronizeDevice(void) {
  return Guard("tsrSynchronizeDevice", [] { return tessera::device::DeviceSynchronize(); });
}

tsrStatus tsrMalloc(void** devPtr, size_t size) {
  return Guard("tsrMalloc", [&] {
    if (devPtr == nullptr) return tessera::InvalidArgument("tsrMalloc: devPtr is NULL");
    *devPtr = nullptr;
    auto p = tessera::device::Malloc(size);
    if (!p.ok()) return p.status();
    *devPtr = *p;
    return tessera::OkStatus();
  });
}

tsrStatus tsrFree(void* devPtr) {
  return Guard("tsrFree", [&] { return tessera::device::Free(devPtr); });
}

tsrStatus tsrMemcpy(void* dst, size_t destMax, const void* src, size_t count, tsrMemcpyKind kind) {
  return Guard("tsrMemcpy", [&] {
    return tessera::device::Memcpy(dst, destMax, src, count,
                                   static_cast<tessera::device::MemcpyKind>(kind));
  });
}

tsrStatus tsrMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count,
                         tsrMemcpyKind kind, tsrStream stream) {
  return Guard("tsrMemcpyAsync", [&] {
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrMemcpyAsync", stream));
    return tessera::device::MemcpyAsync(dst, destMax, src, count,
                                        static_cast<tessera::device::MemcpyKind>(kind), s);
  });
}

tsrStatus tsrMemset(void* dst, size_t destMax, int value, size_t count) {
  return Guard("tsrMemset", [&] { return tessera::device::Memset(dst, destMax, value, count); });
}

tsrStatus tsrMemsetAsync(void* dst, size_t destMax, int value, size_t count, tsrStream stream) {
  return Guard("tsrMemsetAsync", [&] {
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrMemsetAsync", stream));
    return tessera::device::MemsetAsync(dst, destMax, value, count, s);
  });
}

tsrStatus tsrCreateStream(tsrStream* stream) {
  return Guard("tsrCreateStream", [&] {
    if (stream == nullptr) return tessera::InvalidArgument("tsrCreateStream: stream is NULL");
    auto s = tessera::device::Stream::Create();
    if (!s.ok()) return s.status();
    *stream = new tsrStreamHandle{*s};
    tessera::c_api::RegisterHandle(HandleKind::kStream, *stream);
    return tessera::OkStatus();
  });
}

tsrStatus tsrDestroyStream(tsrStream stream) {
  return Guard("tsrDestroyStream", [&] {
    if (stream == nullptr)
      return tessera::InvalidArgument("tsrDestroyStream: the default stream cannot be destroyed");
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrDestroyStream", "stream", HandleKind::kStream, stream));
    if (!tessera::c_api::UnregisterHandle(HandleKind::kStream, stream)) {
      // Another thread destroyed it between the check and now.
      return CheckHandle("tsrDestroyStream", "stream", HandleKind::kStream, stream);
    }
    tessera::Status st = stream->stream.Synchronize();
    tessera::c_api::Retire(stream);
    return st;
  });
}

tsrStatus tsrSynchronizeStream(tsrStream stream) {
  return Guard("tsrSynchronizeStream", [&] {
    if (stream == nullptr) return tessera::c_api::DefaultStream().Synchronize();
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrSynchronizeStream", stream));
    return s.Synchronize();
  });
}

tsrStatus tsrQueryStream(tsrStream stream) {
  return Guard("tsrQueryStream", [&] {
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrQueryStream", stream));
    return s.Query();
  });
}

tsrStatus tsrResetStreamError(tsrStream stream) {
  return Guard("tsrResetStreamError", [&] {
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrResetStreamError", stream));
    s.ResetError();
    return tessera::OkStatus();
  });
}

tsrStatus tsrCreateEvent(tsrEvent* event) {
  return Guard("tsrCreateEvent", [&] {
    if (event == nullptr) return tessera::InvalidArgument("tsrCreateEvent: event is NULL");
    auto e = tessera::device::Event::Create();
    if (!e.ok()) return e.status();
    *event = new tsrEventHandle{*e};
    tessera::c_api::RegisterHandle(HandleKind::kEvent, *event);
    return tessera::OkStatus();
  });
}

tsrStatus tsrDestroyEvent(tsrEvent event) {
  return Guard("tsrDestroyEvent", [&] {
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrDestroyEvent", "event", HandleKind::kEvent, event));
    if (!tessera::c_api::UnregisterHandle(HandleKind::kEvent, event)) {
      return CheckHandle("tsrDestroyEvent", "event", HandleKind::kEvent, event);
    }
    tessera::c_api::Retire(event);
    return tessera::OkStatus();
  });
}

tsrStatus tsrRecordEvent(tsrEvent event, tsrStream stream) {
  return Guard("tsrRecordEvent", [&] {
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrRecordEvent", "event", HandleKind::kEvent, event));
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrRecordEvent", stream));
    return event->event.Record(s);
  });
}

tsrStatus tsrStreamWaitEvent(tsrStream stream, tsrEvent event) {
  return Guard("tsrStreamWaitEvent", [&] {
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrStreamWaitEvent", "event", HandleKind::kEvent, event));
    TESSERA_ASSIGN_OR_RETURN(const auto s, StreamOf("tsrStreamWaitEvent", stream));
    return tessera::device::StreamWaitEvent(s, event->event);
  });
}

tsrStatus tsrSynchronizeEvent(tsrEvent event) {
  return Guard("tsrSynchronizeEvent", [&] {
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrSynchronizeEvent", "event", HandleKind::kEvent, event));
    return event->event.Synchronize();
  });
}

tsrStatus tsrEventElapsedTime(float* ms, tsrEvent start, tsrEvent end) {
  return Guard("tsrEventElapsedTime", [&] {
    if (ms == nullptr) return tessera::InvalidArgument("tsrEventElapsedTime: ms is NULL");
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrEventElapsedTime", "start", HandleKind::kEvent, start));
    TESSERA_RETURN_IF_ERROR(CheckHandle("tsrEventElapsedTime", "end", HandleKind::kEvent, end));
    auto r = tessera::device::Event::ElapsedMs(start->event, end->event);
    if (!r.ok()) return r.status();
    *ms = *r;
    return tessera::OkStatus();
  });
}

tsrTensor* tsrCreateTensor(const int64_t* shape, uint64_t rank, const int64_t* strides,
                           tsrDataType dtype, tsrFormat format, void* deviceAddr) {
  tsrTensor* out = nullptr;
  Guard("tsrCreateTensor", [&] {
    if (rank > 0 && shape == nullptr) {
      return tessera::InvalidArgument("tsrCreateTensor: shape is NULL for rank " +
                                      std::to_string(rank));
    }
    if (!tessera::IsValidDataType(static_cast<int>(dtype))) {
      return tessera::InvalidArgument("tsrCreateTensor: dtype code " +
                                      std::to_string(static_cast<int>(dtype)) +
                                      " is not a tsrDataType");
    }
    if (!tessera::IsValidFormat(static_cast<int>(format))) {
      return tessera::InvalidArgument("tsrCreateTensor: format code " +
                                      std::to_string(static_cast<int>(format)) +
                                      " is not a tsrFormat");
    }
    if (rank > static_cast<uint64_t>(tessera::Shape::kMaxRank)) {
      return tessera::InvalidArgument("tsrCreateTensor: rank " + std::to_string(rank) +
                                      " exceeds the maximum 8");
    }
    auto s = tessera::Shape::Make(std::span<const int64_t>(shape, rank));
    if (!s.ok())
      return tessera::Status(s.status().code(),
                             "tsrCreateTensor: " + std::string(s.status().message()));
    tessera::TensorDesc desc{
        static_cast<tessera::DataType>(dtype), *s, static_cast<tessera::Format>(format), {}};
    if (strides != nullptr) desc.strides.assign(strides, strides + rank);
    if (tessera::Status st = desc.Validate(); !st.ok()) {
      return tessera::Status(st.code(), "tsrCreateTensor: " + std::string(st.message()));
    }
    if (deviceAddr == nullptr && *desc.StorageBytes() > 0) {
      return tessera::InvalidArgument("tsrCreateTensor: deviceAddr is NULL for a non-empty tensor");
    }
    out = new tsrTensor{std::move(desc), deviceAddr};
    tessera::c_api::RegisterHandle(HandleKind::kTensor, out);
    return tessera::OkStatus();
  });
  return out;
}

tsrStatus tsrDestroyTensor(const tsrTensor* tensor) {
  if (!tessera::c_api::UnregisterHandle(HandleKind::kTensor, tensor)) {
    return Report(CheckHandle("tsrDestroyTensor", "tensor", HandleKind::kTensor, tensor));
  }
  tessera::c_api::Retire(const_cast<tsrTensor*>(tensor));
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorShape(const tsrTensor* tensor, int64_t* dims, uint64_t capacity,
                            uint64_t* rank) {
  if (rank == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument, "tsrGetTensorShape: rank is NULL");
  }
  if (tessera::Status st = CheckHandle("tsrGetTensorShape", "tensor", HandleKind::kTensor, tensor);
      !st.ok()) {
    return Report(st);
  }
  const auto r = static_cast<uint64_t>(tensor->desc.shape.rank());
  *rank = r;
  if (capacity > 0 && dims == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument,
                "tsrGetTensorShape: dims is NULL with capacity > 0");
  }
  for (uint64_t i = 0; i < r && i < capacity; ++i)
    dims[i] = tensor->desc.shape.dim(static_cast<int>(i));
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorDataType(const tsrTensor* tensor, tsrDataType* dtype) {
  if (dtype == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument, "tsrGetTensorDataType: dtype is NULL");
  }
  if (tessera::Status st =
          CheckHandle("tsrGetTensorDataType", "tensor", HandleKind::kTensor, tensor);
      !st.ok()) {
    return Report(st);
  }
  *dtype = static_cast<tsrDataType>(tensor->desc.dtype);
  return TSR_SUCCESS;
}

tsrStatus tsrGetTensorAddress(const tsrTensor* tensor, void** deviceAddr) {
  if (deviceAddr == nullptr) {
    return Fail(tessera::StatusCode::kInvalidArgument, "tsrGetTensorAddress: deviceAddr is NULL");
  }
  if (tessera::Status st =
          CheckHandle("tsrGetTensorAddress", "tensor", HandleKind::kTensor, tensor);
      !st.ok()) {
    return Report(st);
  }
  *deviceAddr = tensor->address;
  return TSR_SUCCESS;
}

}  // extern "C"
