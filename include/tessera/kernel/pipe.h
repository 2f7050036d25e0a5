// TPipe, TQue and TBuf: carving a core's on-chip memory into queues of tiles, as in Ascend C; and
// LocalMemAllocator, the static-tensor alternative of the cube samples.
//
// A queue's position picks the memory: VECIN/VECOUT/VECCALC -> UB (vector cores); A1/B1/C1/TSCM ->
// L1, A2 -> L0A, B2 -> L0B, CO1 -> L0C, C2 -> bias table, C2PIPE2GM -> fixpipe buffer (AI cores).
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
#include "tessera/kernel/sync.h"

namespace tessera::kernel {

inline constexpr int32_t kMaxBuffersPerQueue = 8;

// A buffer handle of a user-defined TBufPool (Ascend C's TBufHandle): the pool hands them out by
// index; queues place their buffers by address (buf_pool.h).
using TBufHandle = uint8_t*;

namespace detail {

class BufPoolBase;
// The pool behind a TBufPool or a user-defined pool class (buf_pool.h, which a kernel using pools
// includes; the cast is checked where it is instantiated).
template <class Pool>
const BufPoolBase& PoolOf(const Pool& pool) {
  return static_cast<const BufPoolBase&>(pool);
}
// A pool lives in UB or L1 (the vendor's TBufPool::Init static_assert).
constexpr bool IsPoolPosition(TPosition pos) {
  return pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::VECCALC ||
         pos == TPosition::A1 || pos == TPosition::B1 || pos == TPosition::C1;
}
// Fails the block unless a queue, buffer or sub-pool at `pos` lives in the memory of a pool at
// `pool` (the vendor asserts "buffer pos should be same as pos of TbufPool").
void CheckPoolMemory(TPosition pool, TPosition pos, const char* api);
// Fails the block unless a queue asks for 1..kMaxBuffersPerQueue buffers.
void CheckBufferCount(int64_t num, const char* api);
// Memory at `addr` for `len` bytes inside `pool`, failing the block otherwise.
std::byte* PoolAddress(const BufPoolBase& pool, uint32_t addr, uint64_t len, const char* api);
TPosition PoolPosition(const BufPoolBase& pool);

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

  // A user-defined pool's placement (EXTERN_IMPL_BUFPOOL): InitStartBufHandle gives the queue
  // `num` buffers of `len` bytes (rounded up to 32), InitBufHandle puts buffer `index` at address
  // `addr` of the pool. AllocTensor fails while a buffer is unplaced.
  void InitStartBufHandle(TBufHandle start, uint8_t num, uint32_t len);
  template <class Pool>
  void InitBufHandle(Pool* pool, uint32_t index, TBufHandle /*handle*/, uint32_t addr,
                     uint32_t len) {
    const BufPoolBase& p = PoolOf(*pool);
    CheckPoolMemory(PoolPosition(p), pos_, "TQue::InitBufHandle");
    const uint32_t rounded = static_cast<uint32_t>((uint64_t{len} + 31u) / 32u * 32u);
    Place(index, addr, PoolAddress(p, addr, rounded, "TQue::InitBufHandle"), rounded);
  }

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
  void Place(uint32_t index, uint32_t addr, std::byte* p, uint32_t len);
  void CheckNoneQueued(const char* api) const;  // fails while a buffer is enqueued

  template <class T>
  LocalTensor<T> View(int32_t slot) const {
    return LocalTensor<T>(reinterpret_cast<T*>(slots_[slot].addr),
                          static_cast<uint32_t>(uint64_t{bytes_each_} * 8 / kElemBits<T>), pos_,
                          checked_, checked_ ? &slots_[slot].generation : nullptr,
                          slots_[slot].generation);
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
  // A user-defined pool's placement: which buffers InitBufHandle placed, and at which address.
  bool placing_ = false;
  uint32_t placed_ = 0;
  uint32_t placed_addr_[kMaxBuffersPerQueue] = {};
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
  // Releases the queue's pending buffer events (before the pipe ends, as Ascend C kernels do
  // after their last FreeTensor). The copies here finish before they return, so nothing waits;
  // a buffer still in the queue fails the block, as the vendor's check does.
  void FreeAllEvent() { CheckNoneQueued("FreeAllEvent"); }
  bool VacantInQue() const { return count_ < depth; }
};

// A single UB buffer for temporaries (no queue semantics).
template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  template <class T>
  LocalTensor<T> Get() const {
    if (base_ == nullptr)
      KernelFail("TBuf::Get",
                 "the buffer has no memory: call TPipe::InitBuffer first (a UB buffer on the AIC "
                 "of a MIX kernel has none: use it under ASCEND_IS_AIV)");
    return LocalTensor<T>(reinterpret_cast<T*>(base_),
                          static_cast<uint32_t>(uint64_t{bytes_} * 8 / kElemBits<T>), pos, checked_,
                          nullptr, 0);
  }
  template <class T>
  LocalTensor<T> Get(uint32_t count) const {
    if ((uint64_t{count} * kElemBits<T> + 7) / 8 > bytes_) {
      KernelFail("TBuf::Get", "count " + std::to_string(count) + " x " +
                                  std::to_string(kElemBits<T>) + " bits exceeds the buffer's " +
                                  std::to_string(bytes_) + " bytes");
    }
    LocalTensor<T> all = Get<T>();
    return LocalTensor<T>(all.data(), count, pos, checked_, nullptr, 0);
  }
  // `size` elements starting `bufOffset` bytes in (Ascend C's GetWithOffset).
  template <class T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) const {
    if (base_ == nullptr)
      KernelFail("TBuf::GetWithOffset",
                 "the buffer has no memory: call TPipe::InitBuffer first (a UB buffer on the AIC "
                 "of a MIX kernel has none: use it under ASCEND_IS_AIV)");
    if (uint64_t{bufOffset} + (uint64_t{size} * kElemBits<T> + 7) / 8 > bytes_ ||
        bufOffset % 32 != 0) {
      KernelFail("TBuf::GetWithOffset", "offset " + std::to_string(bufOffset) + " + " +
                                            std::to_string(size) + " x " +
                                            std::to_string(kElemBits<T>) +
                                            " bits must be 32-byte aligned and inside the "
                                            "buffer's " +
                                            std::to_string(bytes_) + " bytes");
    }
    return LocalTensor<T>(reinterpret_cast<T*>(base_ + bufOffset), size, pos, checked_, nullptr, 0);
  }
  // Ascend C's TBuf is a one-buffer queue binding: AllocTensor / DeQue give the whole buffer,
  // EnQue / FreeTensor have nothing to hand over (the buffer belongs to the TBuf).
  template <class T>
  LocalTensor<T> AllocTensor() const {
    return Get<T>();
  }
  template <class T>
  LocalTensor<T> DeQue() const {
    return Get<T>();
  }
  template <class T>
  void EnQue(const LocalTensor<T>& /*tensor*/) const {}
  template <class T>
  void FreeTensor(const LocalTensor<T>& /*tensor*/) const {}

  // For TPipe::InitBuffer.
  void Attach(std::byte* base, uint32_t bytes, bool checked) {
    base_ = base;
    bytes_ = bytes;
    checked_ = checked;
  }
  // A user-defined pool's placement (see TQue): one buffer of `len` bytes at `addr`.
  void InitStartBufHandle(TBufHandle /*start*/, uint8_t num, uint32_t len) {
    if (num != 1) {
      KernelFail("TBuf::InitStartBufHandle", "a TBuf has one buffer, not " + std::to_string(num));
    }
    base_ = nullptr;
    bytes_ = Round32(len);
  }
  template <class Pool>
  void InitBufHandle(Pool* pool, uint32_t index, TBufHandle /*handle*/, uint32_t addr,
                     uint32_t len) {
    const detail::BufPoolBase& p = detail::PoolOf(*pool);
    detail::CheckPoolMemory(detail::PoolPosition(p), pos, "TBuf::InitBufHandle");
    // The vendor rounds the length up to 32 bytes here.
    len = Round32(len);
    if (index != 0 || len != bytes_) {
      KernelFail("TBuf::InitBufHandle", "buffer " + std::to_string(index) + " of " +
                                            std::to_string(len) +
                                            " bytes; InitStartBufHandle "
                                            "gave one buffer of " +
                                            std::to_string(bytes_));
    }
    Attach(detail::PoolAddress(p, addr, len, "TBuf::InitBufHandle"), len, CheckedLaunch());
  }

 private:
  static uint32_t Round32(uint32_t len) {
    return static_cast<uint32_t>((uint64_t{len} + 31u) / 32u * 32u);
  }
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
    detail::CheckBufferCount(num, "TPipe::InitBuffer");
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

  // `len` bytes (rounded up to 32) of the pool's memory for a TBufPool or user-defined pool to
  // carve queues from (buf_pool.h); with `shared`, the first `len` bytes of that pool instead.
  template <class Pool>
  bool InitBufPool(Pool& pool, uint32_t len) {
    const uint64_t bytes = RoundUp(len);
    pool.AttachPool(Take(bytes, detail::PoolPosition(detail::PoolOf(pool))), bytes,
                    "TPipe::InitBufPool");
    return true;
  }
  template <class Pool, class Shared>
  bool InitBufPool(Pool& pool, uint32_t len, Shared& shared) {
    pool.SharePool(detail::PoolOf(shared), RoundUp(len), "TPipe::InitBufPool");
    return true;
  }
  // Returns every byte this pipe handed out, for InitBuffer / InitBufPool to hand out again
  // (queues initialised before keep their addresses, as on the NPU).
  void Reset();

  // Bytes of UB still free for this core.
  uint64_t FreeBytes() const;
  // The free UB past every buffer handed out so far (its size in *bytes), without reserving it:
  // Ascend C's stack buffer, which PopStackBuffer gives to advanced APIs as scratch.
  std::byte* StackBuffer(uint64_t* bytes);

  // Event ids for SetFlag / WaitFlag pairs. AllocEventID reserves the lowest id of `event` not
  // reserved (failing the block when all 8 are); ReleaseEventID returns it. FetchEventID names
  // the lowest unreserved id without reserving it (for a pair used at once).
  template <HardEvent event>
  TEventID AllocEventID() {
    return AllocEventID(event);
  }
  template <HardEvent event>
  void ReleaseEventID(TEventID id) {
    ReleaseEventID(event, id);
  }
  template <HardEvent event>
  TEventID FetchEventID() {
    return FetchEventID(event);
  }
  TEventID FetchEventID(HardEvent event);
  TEventID AllocEventID(HardEvent event);
  void ReleaseEventID(HardEvent event, TEventID id);
  void Destroy();

 private:
  // 64-bit so that sizes near 4 GiB cannot wrap to 0 and slip past the capacity check.
  static uint64_t RoundUp(uint32_t bytes) { return (uint64_t{bytes} + 31u) / 32u * 32u; }
  std::byte* Take(uint64_t bytes, TPosition pos);

  uint64_t start_[7] = {};  // per on-chip memory (UB, L1, L0A, L0B, L0C, BT, FB): our first byte
  bool checked_ = false;
  bool alive_ = true;
  TPipe* previous_ = nullptr;  // the pipe GetTPipePtr returned before this one
};

// The running block's TPipe: the one constructed last and not yet destroyed (fails the block
// when there is none).
TPipe* GetTPipePtr();

// Ascend C's PopStackBuffer: `pop` becomes a view of the UB past the running pipe's buffers
// (TPipe::StackBuffer), in elements of T; false when none is left. A later InitBuffer takes the
// same bytes, as on the NPU.
template <class T, TPosition pos>
bool PopStackBuffer(LocalTensor<T>& pop) {
  static_assert(pos == TPosition::VECCALC || pos == TPosition::VECIN || pos == TPosition::VECOUT,
                "PopStackBuffer: the stack buffer lives in UB (TPosition::LCM / VECCALC)");
  uint64_t bytes = 0;
  std::byte* base = GetTPipePtr()->StackBuffer(&bytes);
  if (bytes < sizeof(T)) return false;
  pop = LocalTensor<T>(reinterpret_cast<T*>(base), static_cast<uint32_t>(bytes / sizeof(T)), pos,
                       CheckedLaunch(), nullptr, 0);
  return true;
}

// The on-chip memories, as Ascend C's LocalMemAllocator names them.
enum class Hardware : uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

namespace detail {
// This core's arena of `hw` (fails the block when the core type has none) and the alignment its
// instructions need of a tensor start (UB/L1 32, L0A/L0B 512, L0C 1024, BT 64, FB 128 bytes).
std::byte* HardwareArena(Hardware hw, uint64_t* bytes, uint32_t* align);
// Fails the block unless `pos` lives in `hw`.
void CheckPositionIn(Hardware hw, TPosition pos);
constexpr TPosition DefaultPosition(Hardware hw) {
  switch (hw) {
    case Hardware::L1:
      return TPosition::A1;
    case Hardware::L0A:
      return TPosition::A2;
    case Hardware::L0B:
      return TPosition::B2;
    case Hardware::L0C:
      return TPosition::CO1;
    case Hardware::BIAS:
      return TPosition::C2;
    case Hardware::FIXBUF:
      return TPosition::C2PIPE2GM;
    default:
      return TPosition::VECCALC;
  }
}
}  // namespace detail

// Static tensors without queues (the cube samples' style):
//   LocalMemAllocator<Hardware::L1> l1;
//   LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(baseM * baseK);
// Each allocator hands out its memory from the start, aligned for the memory's instructions; do not
// mix it with a TPipe on the same memory. Asking for more than the memory holds fails the block.
template <Hardware hw = Hardware::UB>
class LocalMemAllocator {
 public:
  LocalMemAllocator() { base_ = detail::HardwareArena(hw, &capacity_, &align_); }

  template <TPosition pos, class T>
  LocalTensor<T> Alloc(uint32_t count) {
    detail::CheckPositionIn(hw, pos);
    const uint64_t bytes = uint64_t{count} * sizeof(T);
    if (used_ + bytes > capacity_) {
      KernelFail("LocalMemAllocator::Alloc",
                 std::to_string(count) + " elements (" + std::to_string(bytes) + " bytes) at " +
                     std::to_string(used_) + " exceed the " + std::to_string(capacity_) +
                     " bytes of " + TPositionName(pos) + "'s memory");
    }
    T* p = reinterpret_cast<T*>(base_ + used_);
    used_ = (used_ + bytes + align_ - 1) / align_ * align_;
    return LocalTensor<T>(p, count, pos, CheckedLaunch(), nullptr, 0);
  }
  template <class T, uint32_t count>
  LocalTensor<T> Alloc() {
    return Alloc<detail::DefaultPosition(hw), T>(count);
  }
  // The run-time count form, at the memory's default position.
  template <class T>
  LocalTensor<T> Alloc(uint32_t count) {
    return Alloc<detail::DefaultPosition(hw), T>(count);
  }
  // Bytes handed out so far (the next tensor's offset).
  uint32_t GetCurAddr() const { return static_cast<uint32_t>(used_); }

 private:
  std::byte* base_ = nullptr;
  uint64_t capacity_ = 0;
  uint64_t used_ = 0;
  uint32_t align_ = 32;
};

}  // namespace tessera::kernel
