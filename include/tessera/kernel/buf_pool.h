// TBufPool: a slice of a core's on-chip memory (UB or L1) that queues and buffers are carved from,
// as in Ascend C - so that stages of a kernel reuse the same memory through pools that share it.
//
//   TPipe pipe;
//   TBufPool<TPosition::VECCALC> stage1, stage2;
//   pipe.InitBufPool(stage1, 3 * tile);          // 3 * tile bytes of UB
//   pipe.InitBufPool(stage2, 3 * tile, stage1);  // the same bytes as stage1 (share before Reset)
//   stage1.InitBuffer(inQue, 1, tile);           // carved from stage1, in order
//   ... stage1.Reset();                          // stage1's buffers and data are invalid now
//   stage2.InitBuffer(otherQue, 1, tile);        // stage2's first bytes are inQue's
//
// Reset detaches the pool, as the vendor's does (it clears the pool's start and length): queues
// carved before keep their addresses, but carving or sharing the reset pool fails the block (on
// the NPU it would place buffers at address 0); TPipe::InitBufPool may attach it again. In checked
// mode a carved or placed UB buffer starts out unwritten, so reading a previous stage's data
// through it is reported.
//
// A pool may hold sub-pools (pool.InitBufPool(sub, len[, shared])). Carving past the pool's bytes,
// more buffers than its bufIDSize, a queue that already has buffers, or a queue, buffer or
// sub-pool whose position is not in the pool's memory fails the block.
//
// A user-defined pool (Ascend C's EXTERN_IMPL_BUFPOOL(Class, position, bufIDSize), placed in the
// class body) gets Init, Reset, GetBufHandle, GetCurAddr / SetCurAddr (the next free UB address of
// the pool) and GetCurBufSize / SetCurBufSize (buffers handed out) and places buffers itself
// through the queues' InitStartBufHandle / InitBufHandle; an address outside the pool or not
// 32-byte aligned, a buffer overlapping another of the same queue, or AllocTensor while a buffer
// is unplaced fails the block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/kernel/check.h"
#include "tessera/kernel/pipe.h"

namespace tessera::kernel {
namespace detail {

// The bytes, cursor and buffer count of a pool; shared by TBufPool and user-defined pools.
class BufPoolBase {
 public:
  BufPoolBase(TPosition pos, uint32_t max_buffers) : pos_(pos), max_buffers_(max_buffers) {}
  BufPoolBase(const BufPoolBase&) = delete;
  BufPoolBase& operator=(const BufPoolBase&) = delete;

  // For TPipe::InitBufPool and a parent pool: `bytes` at `base`, in the memory of the pool's
  // position (nullptr: addresses without memory, as a UB pool on the AIC of a MIX kernel).
  void AttachPool(std::byte* base, uint64_t bytes, const char* api);
  // The first `bytes` of `other`'s memory (which must hold them).
  void SharePool(const BufPoolBase& other, uint64_t bytes, const char* api);
  TPosition pool_position() const { return pos_; }

  // `bytes` from the cursor for `buffers` more buffers; fails past the pool's bytes or bufIDSize.
  std::byte* Carve(uint64_t bytes, uint32_t buffers, const char* api);
  // Reset: detaches the pool (see above); InitPool: the same, for a pool that was never used.
  void ResetPool() {
    InitPool();
    reset_ = true;
  }
  void InitPool() {
    base_ = nullptr;
    offset_ = 0;
    bytes_ = 0;
    used_ = 0;
    buffers_ = 0;
    reset_ = false;
  }
  // The UB (or L1) address of the cursor, and setting it (a user-defined pool's own carving).
  uint32_t CurAddr() const { return offset_ + static_cast<uint32_t>(used_); }
  void SetCurAddr(uint32_t addr, const char* api);
  uint32_t buffers() const { return buffers_; }
  void set_buffers(uint32_t n, const char* api);
  // The memory at address `addr` for `len` bytes; fails unless it lies inside the pool.
  std::byte* Address(uint32_t addr, uint64_t len, const char* api) const;
  void CheckAttached(const char* api) const;

 private:
  TPosition pos_;
  uint32_t max_buffers_;
  std::byte* base_ = nullptr;  // the pool's first byte
  uint32_t offset_ = 0;        // its address in its memory
  uint64_t bytes_ = 0;
  uint64_t used_ = 0;
  uint32_t buffers_ = 0;
  bool reset_ = false;  // detached by Reset (for the message)
};

inline uint64_t PoolRound(uint32_t bytes) {
  return (uint64_t{bytes} + 31u) / 32u * 32u;
}

}  // namespace detail

template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool : public detail::BufPoolBase {
  static_assert(detail::IsPoolPosition(pos),
                "TBufPool position should be one of L1 (A1/B1/C1) or UB (VECIN/VECOUT/VECCALC)");

 public:
  TBufPool() : BufPoolBase(pos, bufIDSize) {}

  // `num` buffers of `len` bytes (rounded up to 32) for `que`, from the cursor.
  template <TPosition qpos, int32_t depth>
  bool InitBuffer(TQue<qpos, depth>& que, uint8_t num, uint32_t len) {
    detail::CheckBufferCount(num, "TBufPool::InitBuffer");
    if (que.attached()) KernelFail("TBufPool::InitBuffer", "the queue already has buffers");
    detail::CheckPoolMemory(pos, qpos, "TBufPool::InitBuffer");
    const uint64_t each = detail::PoolRound(len);
    std::byte* base = Carve(each * num, num, "TBufPool::InitBuffer");
    que.Attach(base, num, static_cast<uint32_t>(each), CheckedLaunch());
    return true;
  }
  template <TPosition bpos>
  bool InitBuffer(TBuf<bpos>& buf, uint32_t len) {
    detail::CheckPoolMemory(pos, bpos, "TBufPool::InitBuffer");
    const uint64_t each = detail::PoolRound(len);
    buf.Attach(Carve(each, 1, "TBufPool::InitBuffer"), static_cast<uint32_t>(each),
               CheckedLaunch());
    return true;
  }
  // A sub-pool of `len` bytes from the cursor, or the first `len` bytes of `shared` (a sub-pool
  // of this pool too).
  template <class Pool>
  bool InitBufPool(Pool& sub, uint32_t len) {
    detail::CheckPoolMemory(pos, detail::PoolPosition(detail::PoolOf(sub)),
                            "TBufPool::InitBufPool");
    const uint64_t bytes = detail::PoolRound(len);
    sub.AttachPool(Carve(bytes, 0, "TBufPool::InitBufPool"), bytes, "TBufPool::InitBufPool");
    return true;
  }
  template <class Pool, class Shared>
  bool InitBufPool(Pool& sub, uint32_t len, Shared& shared) {
    CheckAttached("TBufPool::InitBufPool");
    sub.SharePool(detail::PoolOf(shared), detail::PoolRound(len), "TBufPool::InitBufPool");
    return true;
  }
  // Detaches the pool (see above); queues carved before keep their addresses.
  void Reset() { ResetPool(); }
};

}  // namespace tessera::kernel

// The pool hooks of a user-defined TBufPool class (see above).
#define EXTERN_IMPL_BUFPOOL(EXT_BUFPOOL, POSITION, BUFID_SIZE)                                \
  static_assert(::tessera::kernel::detail::IsPoolPosition(POSITION), #EXT_BUFPOOL             \
                ": a pool's position should be one of L1 (A1/B1/C1) or UB "                   \
                "(VECIN/VECOUT/VECCALC)");                                                    \
                                                                                              \
 public:                                                                                      \
  void Init() {                                                                               \
    tessera_pool_.InitPool();                                                                 \
  }                                                                                           \
  void Reset() {                                                                              \
    tessera_pool_.ResetPool();                                                                \
  }                                                                                           \
  ::tessera::kernel::TBufHandle GetBufHandle(uint32_t index) {                                \
    if (index >= (BUFID_SIZE)) {                                                              \
      ::tessera::kernel::KernelFail(                                                          \
          #EXT_BUFPOOL "::GetBufHandle",                                                      \
          "handle " + std::to_string(index) + " is past the pool's " #BUFID_SIZE " buffers"); \
    }                                                                                         \
    return &tessera_handles_[index];                                                          \
  }                                                                                           \
  uint32_t GetCurAddr() const {                                                               \
    return tessera_pool_.CurAddr();                                                           \
  }                                                                                           \
  void SetCurAddr(uint32_t addr) {                                                            \
    tessera_pool_.SetCurAddr(addr, #EXT_BUFPOOL "::SetCurAddr");                              \
  }                                                                                           \
  uint32_t GetCurBufSize() const {                                                            \
    return tessera_pool_.buffers();                                                           \
  }                                                                                           \
  void SetCurBufSize(uint32_t n) {                                                            \
    tessera_pool_.set_buffers(n, #EXT_BUFPOOL "::SetCurBufSize");                             \
  }                                                                                           \
  void AttachPool(std::byte* base, uint64_t bytes, const char* api) {                         \
    tessera_pool_.AttachPool(base, bytes, api);                                               \
  }                                                                                           \
  void SharePool(const ::tessera::kernel::detail::BufPoolBase& other, uint64_t bytes,         \
                 const char* api) {                                                           \
    tessera_pool_.SharePool(other, bytes, api);                                               \
  }                                                                                           \
  operator const ::tessera::kernel::detail::BufPoolBase&() const {                            \
    return tessera_pool_;                                                                     \
  }                                                                                           \
                                                                                              \
 private:                                                                                     \
  ::tessera::kernel::detail::BufPoolBase tessera_pool_{(POSITION), (BUFID_SIZE)};             \
  uint8_t tessera_handles_[(BUFID_SIZE)] {}
