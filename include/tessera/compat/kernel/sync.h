// Ascend C's inter-block synchronisation through GM and its cache / barrier calls, on tessera's
// GM-word primitives (tessera/kernel/gm_sync.h). Every wait yields its block while it polls, so
// blocks that wait on each other never deadlock however few threads run them.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "tessera/device/block.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/data_copy.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/gm_sync.h"
#include "tessera/kernel/kernel.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/sync.h"

// The vendor compiler's event-id type; FetchEventID's result casts to it.
using event_t = ::tessera::kernel::TEventID;

namespace AscendC {

// DataSyncBarrier's scope and DataCacheCleanAndInvalid's options, with the vendor's values.
enum class MemDsbT : uint8_t { ALL = 0, DDR, UB, SEQ };
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
enum class PipeMode : uint8_t { SCALAR_MODE = 0, MTE3_MODE = 1, MAX };

// Orders this block's earlier memory accesses before later ones (a full fence on the CPU).
template <MemDsbT scope>
inline void DataSyncBarrier() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Flushes and invalidates the data cache for a GM line: on the CPU's coherent caches this orders
// the block's stores and yields, so a loop reading a flag after it lets the writer run.
template <class T, CacheLine entireType, DcciDst dst>
inline void DataCacheCleanAndInvalid(const ::tessera::kernel::GlobalTensor<T>&) {
  ::tessera::kernel::SyncGmView();
}
template <class T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const ::tessera::kernel::GlobalTensor<T>&) {
  ::tessera::kernel::SyncGmView();
}
// The UB form: UB has no data cache on the CPU.
template <class T, CacheLine entireType, DcciDst dst>
inline void DataCacheCleanAndInvalid(const ::tessera::kernel::LocalTensor<T>&) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

// Scalar GM access past the data cache: the store is visible to other blocks at once; the load
// reads what they stored last and yields, so a polling loop lets them run.
template <class T>
inline void WriteGmByPassDCache(T* addr, T value) {
  ::tessera::kernel::StoreGmShared(addr, value);
}
template <class T>
inline T ReadGmByPassDCache(T* addr) {
  return ::tessera::kernel::LoadGmShared(addr);
}

namespace sync_detail {
// The 32-byte flag of (blockIdx, eventID) in an IBSet / IBWait workspace, as the vendor lays it
// out: eventID-major, one 8-word block per core (both AIVs of each group when not AIV-only).
template <bool isAIVOnly>
int32_t* IbFlag(const char* api, const ::tessera::kernel::GlobalTensor<int32_t>& gm,
                int32_t blockIdx, int32_t eventID) {
  const int64_t cores =
      static_cast<int64_t>(::tessera::device::GetBlockNum()) * (isAIVOnly ? 1 : 2);
  if (blockIdx < 0 || blockIdx >= cores) {
    ::tessera::kernel::KernelFail(api, "blockIdx " + std::to_string(blockIdx) +
                                           " is out of range; expected 0.." +
                                           std::to_string(cores - 1));
  }
  if (eventID < 0) {
    ::tessera::kernel::KernelFail(api, "eventID " + std::to_string(eventID) + " is negative");
  }
  const uint64_t index = static_cast<uint64_t>(cores * 8 * eventID + blockIdx * 8);
  if (index >= gm.GetSize()) {
    ::tessera::kernel::KernelFail(
        api, "gmWorkspace holds " + std::to_string(gm.GetSize()) +
                 " int32 values; flag (blockIdx " + std::to_string(blockIdx) + ", eventID " +
                 std::to_string(eventID) + ") is at " + std::to_string(index));
  }
  return gm.GetPhyAddr() + index;
}
}  // namespace sync_detail

// IBSet / IBWait: a one-slot handshake per (blockIdx, eventID) in a zeroed GM workspace. IBSet
// waits for the slot to be free (0) and raises it to 1; IBWait waits for 1 and frees it. blockIdx
// names the block that sets; both calls pass the same gmWorkspace, blockIdx and eventID. The UB
// workspace is the vendor's staging buffer and is not needed here. An AIC returns at once, as on
// the 2201 NPU.
template <bool isAIVOnly = true>
inline void IBSet(const ::tessera::kernel::GlobalTensor<int32_t>& gmWorkspace,
                  const ::tessera::kernel::LocalTensor<int32_t>&, int32_t blockIdx,
                  int32_t eventID) {
  if (::tessera::kernel::IsAic()) return;
  int32_t* flag = sync_detail::IbFlag<isAIVOnly>("IBSet", gmWorkspace, blockIdx, eventID);
  ::tessera::kernel::WaitGmWord(flag, [](int32_t v) { return v == 0; });
  ::tessera::kernel::StoreGmShared(flag, int32_t{1});
}
template <bool isAIVOnly = true>
inline void IBWait(const ::tessera::kernel::GlobalTensor<int32_t>& gmWorkspace,
                   const ::tessera::kernel::LocalTensor<int32_t>&, int32_t blockIdx,
                   int32_t eventID) {
  if (::tessera::kernel::IsAic()) return;
  int32_t* flag = sync_detail::IbFlag<isAIVOnly>("IBWait", gmWorkspace, blockIdx, eventID);
  ::tessera::kernel::WaitGmWord(flag, [](int32_t v) { return v == 1; });
  ::tessera::kernel::StoreGmShared(flag, int32_t{0});
}

// Blocks in blockIdx order: InitDetermineComputeWorkspace (every block, once) clears the GM
// workspace (block 0) and starts the round count in UB; WaitPreBlock returns once every block
// before this one has called NotifyNextBlock in this round; the last block's NotifyNextBlock starts
// the next round. gmWorkspace holds GetBlockNum() * 8 int32 values, ubWorkspace one block more.
namespace sync_detail {
inline uint64_t DetermineWords(const char* api, uint64_t gm_size, uint64_t ub_size) {
  const uint64_t n = ::tessera::device::GetBlockNum();
  if (gm_size < n * 8) {
    ::tessera::kernel::KernelFail(api, "gmWorkspace holds " + std::to_string(gm_size) +
                                           " int32 values; " + std::to_string(n) + " blocks need " +
                                           std::to_string(n * 8));
  }
  if (ub_size < n * 8 + 1) {
    ::tessera::kernel::KernelFail(api, "ubWorkspace holds " + std::to_string(ub_size) +
                                           " int32 values; " + std::to_string(n) + " blocks need " +
                                           std::to_string(n * 8 + 8));
  }
  return n;
}
}  // namespace sync_detail
inline void InitDetermineComputeWorkspace(::tessera::kernel::GlobalTensor<int32_t>& gmWorkspace,
                                          ::tessera::kernel::LocalTensor<int32_t>& ubWorkspace) {
  if (::tessera::kernel::IsAic()) return;
  const uint64_t n = sync_detail::DetermineWords("InitDetermineComputeWorkspace", gmWorkspace.GetSize(),
                                            ubWorkspace.GetSize());
  if (::tessera::device::GetBlockIdx() == 0) {
    for (uint64_t b = 0; b < n; ++b) {
      ::tessera::kernel::StoreGmShared(gmWorkspace.GetPhyAddr() + b * 8, int32_t{0});
    }
  }
  ubWorkspace.SetValue(static_cast<uint32_t>(n * 8), 1);
}
inline void WaitPreBlock(::tessera::kernel::GlobalTensor<int32_t>& gmWorkspace,
                         ::tessera::kernel::LocalTensor<int32_t>& ubWorkspace) {
  if (::tessera::kernel::IsAic()) return;
  const uint64_t n =
      sync_detail::DetermineWords("WaitPreBlock", gmWorkspace.GetSize(), ubWorkspace.GetSize());
  const uint64_t me = ::tessera::device::GetBlockIdx();
  const int32_t round = ubWorkspace.GetValue(static_cast<uint32_t>(n * 8));
  int32_t* words = gmWorkspace.GetPhyAddr();
  for (uint64_t b = 0; b < n; ++b) {
    const int32_t want = b < me ? round : 0;
    ::tessera::kernel::WaitGmWord(words + b * 8, [want](int32_t v) { return v == want; });
  }
}
inline void NotifyNextBlock(::tessera::kernel::GlobalTensor<int32_t>& gmWorkspace,
                            ::tessera::kernel::LocalTensor<int32_t>& ubWorkspace) {
  if (::tessera::kernel::IsAic()) return;
  const uint64_t n =
      sync_detail::DetermineWords("NotifyNextBlock", gmWorkspace.GetSize(), ubWorkspace.GetSize());
  const uint64_t me = ::tessera::device::GetBlockIdx();
  const int32_t round = ubWorkspace.GetValue(static_cast<uint32_t>(n * 8));
  int32_t* words = gmWorkspace.GetPhyAddr();
  if (me + 1 == n) {
    for (uint64_t b = 0; b < n; ++b)
      ::tessera::kernel::StoreGmShared(words + b * 8, int32_t{0});
  } else {
    ::tessera::kernel::StoreGmShared(words + me * 8, round);
  }
  ubWorkspace.SetValue(static_cast<uint32_t>(n * 8), round + 1);
}

// Launches on one stream run in order on the CPU, so a kernel never starts before the previous
// one ended: the super-kernel overlap hints have nothing to wait for.
template <bool FORCE = false>
inline void WaitPreTaskEnd() {}
inline void SetNextTaskStart() {}

// Sets the first `size` elements of a GM tensor to `value` (the vendor's older name for Fill), as
// a UB -> GM store: the atomic mode in effect applies and checked mode records the writes.
template <class T>
inline void InitOutput(::tessera::kernel::GlobalTensor<T> gm, uint32_t size, T value = 0) {
  if (gm.GetSize() < size) {
    ::tessera::kernel::KernelFail("InitOutput", "size " + std::to_string(size) +
                                                    " exceeds the global tensor's " +
                                                    std::to_string(gm.GetSize()) + " elements");
  }
  constexpr uint32_t kChunk = 1024;
  T chunk[kChunk];
  for (uint32_t i = 0; i < kChunk; ++i)
    chunk[i] = value;
  for (uint32_t done = 0; done < size; done += kChunk) {
    const uint32_t n = size - done < kChunk ? size - done : kChunk;
    ::tessera::kernel::detail::CopyToGlobal(gm.GetPhyAddr() + done, chunk, size_t{n} * sizeof(T),
                                            false, "InitOutput");
  }
}

// Pipe mutexes: a block's pipes run in program order on the CPU, so a lock never waits. As on the
// 2201 NPU, AllocMutexID returns id 0 and Lock / Unlock / ReleaseMutexID do nothing.
using MutexID = uint8_t;
struct Mutex {
  template <::tessera::kernel::pipe_t pipe>
  static void Lock(MutexID) {}
  template <::tessera::kernel::pipe_t pipe>
  static void Unlock(MutexID) {}
};
inline MutexID AllocMutexID() {
  return 0;
}
inline void ReleaseMutexID(MutexID) {}

// GroupBarrier: arriveSize blocks Arrive, waitSize blocks Wait until all of this round's arrivals;
// an Arrive of the next round first waits until every Wait of the previous round returned. The
// GM workspace (zeroed, GetWorkspaceLen() bytes at least 64) holds the two round counters.
template <PipeMode pipeMode>
class GroupBarrier {
 public:
  GroupBarrier(uint8_t* workspace, uint32_t arriveSize, uint32_t waitSize)
      : arrive_(reinterpret_cast<uint32_t*>(workspace)),
        wait_(reinterpret_cast<uint32_t*>(workspace) + 8),
        arrive_size_(arriveSize),
        wait_size_(waitSize) {
    static_assert(pipeMode == PipeMode::MTE3_MODE, "GroupBarrier supports PipeMode::MTE3_MODE");
    const uint32_t blocks = ::tessera::device::GetBlockNum();
    if (arriveSize == 0 || waitSize == 0 || arriveSize > blocks || waitSize > blocks) {
      ::tessera::kernel::KernelFail("GroupBarrier",
                                    "arriveSize " + std::to_string(arriveSize) + " and waitSize " +
                                        std::to_string(waitSize) + " must be in 1.." +
                                        std::to_string(blocks) + " (the launch's blocks)");
    }
    if (workspace == nullptr) ::tessera::kernel::KernelFail("GroupBarrier", "workspace is null");
  }
  // Counts this block's arrival for the current round.
  void Arrive(uint32_t arriveIndex) {
    CheckIndex("GroupBarrier::Arrive", arriveIndex, arrive_size_);
    if (round_ > 1) {
      const uint32_t done = (round_ - 1) * wait_size_;
      ::tessera::kernel::WaitGmWord(wait_, [done](uint32_t v) { return v >= done; });
    }
    ::tessera::device::NoteRelease(arrive_);
    ::tessera::kernel::AtomicAdd(arrive_, uint32_t{1});
    ++round_;
    arrived_ = true;
  }
  // Returns once every arriver of this round has arrived.
  void Wait(uint32_t waitIndex) {
    CheckIndex("GroupBarrier::Wait", waitIndex, wait_size_);
    const uint32_t round = arrived_ ? round_ - 1 : round_;
    const uint32_t need = round * arrive_size_;
    ::tessera::kernel::WaitGmWord(arrive_, [need](uint32_t v) { return v >= need; });
    ::tessera::device::NoteRelease(wait_);
    ::tessera::kernel::AtomicAdd(wait_, uint32_t{1});
    if (!arrived_) ++round_;
    arrived_ = false;
  }
  uint64_t GetWorkspaceLen() const {
    return uint64_t{arrive_size_ > wait_size_ ? arrive_size_ : wait_size_} * 64;
  }

 private:
  static void CheckIndex(const char* api, uint32_t index, uint32_t size) {
    if (index >= size) {
      ::tessera::kernel::KernelFail(api, "index " + std::to_string(index) +
                                             " is out of range; expected 0.." +
                                             std::to_string(size - 1));
    }
  }
  uint32_t* arrive_;
  uint32_t* wait_;
  uint32_t arrive_size_;
  uint32_t wait_size_;
  uint32_t round_ = 1;
  bool arrived_ = false;
};

}  // namespace AscendC
