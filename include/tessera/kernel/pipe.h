// TPipe, TQue and TBuf: carving a core's Unified Buffer into queues of tiles, as in Ascend C.
//
//   TPipe pipe;
//   TQue<TPosition::VECIN, 2> inQueue;        // depth 2: double buffering
//   pipe.InitBuffer(inQueue, 2, tileBytes);   // two buffers of tileBytes in UB
//   LocalTensor<float> x = inQueue.AllocTensor<float>();
//   DataCopy(x, xGm[offset], tileLength);
//   inQueue.EnQue(x);
//   LocalTensor<float> ready = inQueue.DeQue<float>();
//   ...
//   inQueue.FreeTensor(ready);
//
// Structural misuse (UB over capacity, AllocTensor with every buffer in use, DeQue on an empty
// queue, EnQue/FreeTensor of a tensor that is not this queue's, double FreeTensor) always fails the
// block with a message naming the API and the values: on an NPU it would hang or corrupt memory.
// Tensors still allocated when the kernel ends are reported in checked mode.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {

inline constexpr int32_t kMaxBuffersPerQueue = 8;

namespace detail {

// The queue machinery shared by every TQue instantiation.
class QueueBase {
 public:
  QueueBase(TPosition pos, int32_t depth) : pos_(pos), depth_(depth) {}
  ~QueueBase();
  QueueBase(const QueueBase&) = delete;
  QueueBase& operator=(const QueueBase&) = delete;

  // For TPipe::InitBuffer.
  void Attach(std::byte* base, int32_t num, uint32_t bytes_each, bool checked);
  bool attached() const { return num_ > 0; }

 protected:
  struct Slot {
    std::byte* addr = nullptr;
    uint32_t generation = 0;
    enum class State : uint8_t { kFree, kAllocated, kQueued, kDequeued } state = State::kFree;
  };

  int32_t Alloc();                                    // slot index; fails when none is free
  void EnQue(const void* addr, uint32_t generation);  // fails on foreign tensor / full queue
  int32_t DeQue();                                    // slot index; fails when empty
  void Free(const void* addr, uint32_t generation);   // fails on foreign tensor / double free
  bool HasBuffer(const void* addr) const;

  template <class T>
  LocalTensor<T> View(int32_t slot) const {
    return LocalTensor<T>(reinterpret_cast<T*>(slots_[slot].addr),
                          static_cast<uint32_t>(bytes_each_ / sizeof(T)), pos_, checked_,
                          checked_ ? &slots_[slot].generation : nullptr, slots_[slot].generation);
  }
  std::string Name() const;

  TPosition pos_;
  int32_t depth_;
  int32_t num_ = 0;
  uint32_t bytes_each_ = 0;
  bool checked_ = false;
  Slot slots_[kMaxBuffersPerQueue];
  int32_t ring_[kMaxBuffersPerQueue] = {};
  int32_t head_ = 0;
  int32_t count_ = 0;
  int32_t next_alloc_ = 0;
};

}  // namespace detail

// A FIFO of UB tiles between pipeline stages. `depth` bounds how many tensors may be enqueued.
template <TPosition pos, int32_t depth>
class TQue : public detail::QueueBase {
  static_assert(depth >= 1 && depth <= kMaxBuffersPerQueue, "TQue depth must be 1..8");

 public:
  TQue() : QueueBase(pos, depth) {}

  // A free buffer of this queue as a tensor of T (bytes / sizeof(T) elements).
  template <class T>
  LocalTensor<T> AllocTensor() {
    return View<T>(Alloc());
  }
  template <class T>
  void EnQue(const LocalTensor<T>& tensor) {
    QueueBase::EnQue(tensor.data(), tensor.seen_generation());
  }
  template <class T>
  LocalTensor<T> DeQue() {
    return View<T>(QueueBase::DeQue());
  }
  template <class T>
  void FreeTensor(const LocalTensor<T>& tensor) {
    Free(tensor.data(), tensor.seen_generation());
  }
  // Ascend C spelling of "how many tensors are enqueued".
  int32_t GetTensorCountInQue() const { return count_; }
  bool VacantInQue() const { return count_ < depth; }
};

// A single UB buffer for temporaries (no queue semantics).
template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  template <class T>
  LocalTensor<T> Get() const {
    if (base_ == nullptr)
      KernelFail("TBuf::Get", "the buffer has no memory: call TPipe::InitBuffer first");
    return LocalTensor<T>(reinterpret_cast<T*>(base_), static_cast<uint32_t>(bytes_ / sizeof(T)),
                          pos, checked_, nullptr, 0);
  }
  template <class T>
  LocalTensor<T> Get(uint32_t count) const {
    if (uint64_t{count} * sizeof(T) > bytes_) {
      KernelFail("TBuf::Get", "count " + std::to_string(count) + " x " + std::to_string(sizeof(T)) +
                                  " bytes exceeds the buffer's " + std::to_string(bytes_) +
                                  " bytes");
    }
    LocalTensor<T> all = Get<T>();
    return LocalTensor<T>(all.data(), count, pos, checked_, nullptr, 0);
  }

  // For TPipe::InitBuffer.
  void Attach(std::byte* base, uint32_t bytes, bool checked) {
    base_ = base;
    bytes_ = bytes;
    checked_ = checked;
  }

 private:
  std::byte* base_ = nullptr;
  uint32_t bytes_ = 0;
  bool checked_ = false;
};

// Hands out this core's UB to queues and buffers, 32-byte aligned. Destroying the pipe returns its
// memory.
class TPipe {
 public:
  TPipe();
  ~TPipe();
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  // `num` buffers of `bytes` each (rounded up to 32) for `queue`.
  template <TPosition pos, int32_t depth>
  void InitBuffer(TQue<pos, depth>& queue, int32_t num, uint32_t bytes) {
    if (num < 1 || num > kMaxBuffersPerQueue) {
      KernelFail("TPipe::InitBuffer", "buffer number " + std::to_string(num) +
                                          " is out of range; expected 1.." +
                                          std::to_string(kMaxBuffersPerQueue));
    }
    if (queue.attached()) KernelFail("TPipe::InitBuffer", "the queue already has buffers");
    const uint64_t each = RoundUp(bytes);
    std::byte* base = Take(each * static_cast<uint64_t>(num), pos);  // fails beyond the arena
    queue.Attach(base, num, static_cast<uint32_t>(each), checked_);
  }
  template <TPosition pos>
  void InitBuffer(TBuf<pos>& buf, uint32_t bytes) {
    const uint64_t each = RoundUp(bytes);
    std::byte* base = Take(each, pos);
    buf.Attach(base, static_cast<uint32_t>(each), checked_);
  }

  // Bytes of UB still free for this core.
  uint64_t FreeBytes() const;
  void Destroy();

 private:
  // 64-bit so that sizes near 4 GiB cannot wrap to 0 and slip past the capacity check.
  static uint64_t RoundUp(uint32_t bytes) { return (uint64_t{bytes} + 31u) / 32u * 32u; }
  std::byte* Take(uint64_t bytes, TPosition pos);

  uint64_t start_[5] = {};  // per on-chip memory (UB, L1, L0A, L0B, L0C): where our buffers begin
  bool checked_ = false;
  bool alive_ = true;
};

}  // namespace tessera::kernel
