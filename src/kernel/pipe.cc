#include "tessera/kernel/pipe.h"
#include "tessera/kernel/buf_pool.h"

#include <exception>
#include <memory>

#include "block_state.h"
#include "tessera/device/device.h"
#include "tessera/kernel/vector_compare.h"

namespace tessera::kernel {
namespace detail {
namespace {

const char* MemoryName(Memory m) {
  static const char* const kNames[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT", "FB"};
  return kNames[static_cast<int>(m)];
}

Memory MemoryOf(TPosition pos) {
  switch (pos) {
    case TPosition::A1:
    case TPosition::B1:
    case TPosition::C1:
    case TPosition::TSCM:
      return Memory::kL1;
    case TPosition::C2:
      return Memory::kBt;
    case TPosition::C2PIPE2GM:
      return Memory::kFb;
    case TPosition::A2:
      return Memory::kL0a;
    case TPosition::B2:
      return Memory::kL0b;
    case TPosition::CO1:
      return Memory::kL0c;
    default:
      return Memory::kUb;
  }
}

void Arena(const device::BlockContext& ctx, Memory m, std::byte** base, size_t* bytes) {
  switch (m) {
    case Memory::kL1:
      *base = ctx.l1, *bytes = ctx.l1_bytes;
      break;
    case Memory::kL0a:
      *base = ctx.l0a, *bytes = ctx.l0a_bytes;
      break;
    case Memory::kL0b:
      *base = ctx.l0b, *bytes = ctx.l0b_bytes;
      break;
    case Memory::kL0c:
      *base = ctx.l0c, *bytes = ctx.l0c_bytes;
      break;
    case Memory::kBt:
      *base = ctx.bt, *bytes = ctx.bt_bytes;
      break;
    case Memory::kFb:
      *base = ctx.fb, *bytes = ctx.fb_bytes;
      break;
    default:
      *base = ctx.ub, *bytes = ctx.ub_bytes;
      break;
  }
}

const char* StateName(int state) {
  static const char* const kNames[] = {"free", "allocated", "enqueued", "dequeued"};
  return kNames[state];
}

// A finished block's state, kept for the next block this thread runs (fibers never change
// threads, so a block's state is created and released on one thread).
thread_local std::unique_ptr<KernelBlockState> tls_spare_state;

void ExitHook(device::BlockContext& ctx, bool completed) {
  auto* state = static_cast<KernelBlockState*>(ctx.layer_state);
  if (state == nullptr) return;
  if (completed && ctx.checked) {
    for (int e = 0; e < static_cast<int>(HardEvent::kCount); ++e) {
      for (int id = 0; id < kMaxEventId; ++id) {
        const int32_t pending = state->flags[e][id];
        if (pending > 0) {
          KernelFinding("SetFlag",
                        std::string("SetFlag<") + HardEventName(static_cast<HardEvent>(e)) + ">(" +
                            std::to_string(id) + ") was set " + std::to_string(pending) +
                            " time(s) more than it was waited for by the end of the kernel");
        }
      }
    }
  }
  ctx.layer_state = nullptr;
  // The thread's next block reuses it: a launch of small blocks allocates no block state.
  if (!tls_spare_state) {
    *state = KernelBlockState{};
    tls_spare_state.reset(state);
  } else {
    delete state;
  }
}

// Installs the hook when the library loads.
const bool kHookInstalled = [] {
  device::SetBlockExitHook(&ExitHook);
  return true;
}();

Memory MemoryOfHardware(Hardware hw) {
  switch (hw) {
    case Hardware::L1:
      return Memory::kL1;
    case Hardware::L0A:
      return Memory::kL0a;
    case Hardware::L0B:
      return Memory::kL0b;
    case Hardware::L0C:
      return Memory::kL0c;
    case Hardware::BIAS:
      return Memory::kBt;
    case Hardware::FIXBUF:
      return Memory::kFb;
    default:
      return Memory::kUb;
  }
}

}  // namespace

std::byte* HardwareArena(Hardware hw, uint64_t* bytes, uint32_t* align) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr) KernelFail("LocalMemAllocator", "called outside a kernel");
  if (hw == Hardware::GM || hw == Hardware::MAX) {
    KernelFail("LocalMemAllocator", "Hardware::GM/MAX is not an on-chip memory");
  }
  const Memory m = MemoryOfHardware(hw);
  std::byte* base = nullptr;
  size_t capacity = 0;
  Arena(*ctx, m, &base, &capacity);
  if (base == nullptr) {
    KernelFail("LocalMemAllocator", std::string("a ") + device::CoreTypeName(ctx->core_type) +
                                        " core has no " + MemoryName(m));
  }
  static constexpr uint32_t kAlign[] = {32, 32, 512, 512, 1024, 64, 128};
  *bytes = capacity;
  *align = kAlign[static_cast<int>(m)];
  return base;
}

void CheckPositionIn(Hardware hw, TPosition pos) {
  if (MemoryOf(pos) != MemoryOfHardware(hw) || pos == TPosition::GM || pos == TPosition::CO2) {
    KernelFail("LocalMemAllocator::Alloc", std::string("position ") + TPositionName(pos) +
                                               " is not in " + MemoryName(MemoryOfHardware(hw)));
  }
}

KernelBlockState& State(const char* api) {
  device::BlockContext* ctx = const_cast<device::BlockContext*>(device::CurrentBlock());
  if (ctx == nullptr) KernelFail(api, "called outside a kernel");
  if (ctx->layer_state == nullptr) {
    ctx->layer_state = tls_spare_state ? tls_spare_state.release() : new KernelBlockState();
  }
  return *static_cast<KernelBlockState*>(ctx->layer_state);
}

bool CheckedBlock() {
  return CheckedLaunch();
}

QueueBase::~QueueBase() {
  if (!checked_ || std::uncaught_exceptions() > 0) return;
  int live = 0;
  for (int32_t i = 0; i < num_; ++i)
    live += slots_[i].state != Slot::State::kFree;
  if (live > 0) {
    KernelFinding("FreeTensor", Name() + ": " + std::to_string(live) +
                                    " tensor(s) taken with AllocTensor were not freed with "
                                    "FreeTensor by the end of the kernel");
  }
}

std::string QueueBase::Name() const {
  return std::string("TQue<") + TPositionName(pos_) + ", depth " + std::to_string(depth_) + ">";
}

void QueueBase::Attach(std::byte* base, int32_t num, uint32_t bytes_each, bool checked) {
  placing_ = false;
  num_ = num;
  bytes_each_ = bytes_each;
  checked_ = checked;
  for (int32_t i = 0; i < num; ++i)
    slots_[i].addr =
        base == nullptr ? nullptr : base + uint64_t{bytes_each} * static_cast<uint64_t>(i);
}

bool QueueBase::HasBuffer(const void* addr) const {
  for (int32_t i = 0; i < num_; ++i) {
    if (slots_[i].addr == addr) return true;
  }
  return false;
}

void QueueBase::CheckNoneQueued(const char* api) const {
  for (int32_t i = 0; i < num_; ++i) {
    if (slots_[i].state == Slot::State::kQueued) {
      KernelFail(api, Name() + ": buffer " + std::to_string(i) +
                          " is still in the queue; DeQue and FreeTensor it first");
    }
  }
}

int32_t QueueBase::Alloc() {
  if (num_ == 0)
    KernelFail("AllocTensor", Name() + " has no buffers: call TPipe::InitBuffer first");
  for (int32_t i = 0; placing_ && i < num_; ++i) {
    if ((placed_ >> i & 1u) == 0) {
      KernelFail("TQue::AllocTensor", Name() + ": buffer " + std::to_string(i) + " of " +
                                          std::to_string(num_) +
                                          " was never placed with InitBufHandle");
    }
  }
  if (slots_[0].addr == nullptr) {
    KernelFail("AllocTensor", Name() +
                                  ": a UB queue on the AIC of a MIX kernel has addresses but no "
                                  "memory (the AIC has no UB); use it under ASCEND_IS_AIV");
  }
  for (int32_t k = 0; k < num_; ++k) {
    const int32_t i = (next_alloc_ + k) % num_;
    if (slots_[i].state == Slot::State::kFree) {
      slots_[i].state = Slot::State::kAllocated;
      next_alloc_ = (i + 1) % num_;
      return i;
    }
  }
  KernelFail("AllocTensor", Name() + ": all " + std::to_string(num_) +
                                " buffers are in use; FreeTensor one before allocating another");
}

void QueueBase::EnQue(const void* addr, uint32_t generation) {
  for (int32_t i = 0; i < num_; ++i) {
    Slot& s = slots_[i];
    if (s.addr != addr) continue;
    if (s.state == Slot::State::kFree || (checked_ && s.generation != generation)) {
      KernelFail("EnQue",
                 Name() + ": use after FreeTensor: the tensor was already freed with FreeTensor");
    }
    if (count_ >= depth_) {
      KernelFail("EnQue", Name() + " is full (" + std::to_string(count_) + " tensors enqueued)");
    }
    if (s.state == Slot::State::kQueued)
      KernelFail("EnQue", Name() + ": the tensor is already enqueued");
    s.state = Slot::State::kQueued;
    ring_[(head_ + count_) % kMaxBuffersPerQueue] = i;
    ++count_;
    return;
  }
  KernelFail("EnQue", Name() +
                          ": the tensor does not belong to this queue (allocate it with this "
                          "queue's AllocTensor)");
}

int32_t QueueBase::DeQue() {
  if (count_ == 0) KernelFail("DeQue", Name() + " is empty: EnQue a tensor before DeQue");
  const int32_t i = ring_[head_];
  head_ = (head_ + 1) % kMaxBuffersPerQueue;
  --count_;
  slots_[i].state = Slot::State::kDequeued;
  return i;
}

void QueueBase::Free(const void* addr, uint32_t generation) {
  for (int32_t i = 0; i < num_; ++i) {
    Slot& s = slots_[i];
    if (s.addr != addr) continue;
    if (s.state == Slot::State::kFree || (checked_ && s.generation != generation)) {
      KernelFail("FreeTensor", Name() + ": double FreeTensor of the same tensor");
    }
    if (s.state == Slot::State::kQueued) {
      KernelFail("FreeTensor", Name() + ": the tensor is still " +
                                   StateName(static_cast<int>(s.state)) + "; DeQue it first");
    }
    s.state = Slot::State::kFree;
    ++s.generation;
    return;
  }
  KernelFail("FreeTensor", Name() + ": the tensor does not belong to this queue");
}

}  // namespace detail

TPipe::TPipe() {
  detail::KernelBlockState& state = detail::State("TPipe");
  for (int m = 0; m < static_cast<int>(detail::Memory::kCount); ++m)
    start_[m] = state.used[m];
  checked_ = CheckedLaunch();
  previous_ = state.pipe;
  state.pipe = this;
}

TPipe::~TPipe() {
  Destroy();
}

void TPipe::Destroy() {
  if (!alive_) return;
  alive_ = false;
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr) return;
  auto* state = static_cast<detail::KernelBlockState*>(ctx->layer_state);
  for (int m = 0; m < static_cast<int>(detail::Memory::kCount); ++m)
    state->used[m] = start_[m];
  // Unlink this pipe from the block's chain of live pipes wherever it is, so GetTPipePtr never
  // returns a destroyed pipe when pipes die out of order.
  if (state->pipe == this) {
    state->pipe = previous_;
  } else {
    for (TPipe* p = state->pipe; p != nullptr; p = p->previous_) {
      if (p->previous_ == this) {
        p->previous_ = previous_;
        break;
      }
    }
  }
}

TEventID TPipe::FetchEventID(HardEvent event) {
  if (event >= HardEvent::MAX) KernelFail("TPipe::FetchEventID", "HardEvent::MAX is not an event");
  const uint8_t taken = detail::State("TPipe::FetchEventID").event_ids_taken[int(event)];
  for (int id = 0; id < kMaxEventId; ++id) {
    if ((taken >> id & 1) == 0) return static_cast<TEventID>(id);
  }
  KernelFail("TPipe::FetchEventID", std::string("every event id of HardEvent::") +
                                        HardEventName(event) + " is taken by AllocEventID");
}

TEventID TPipe::AllocEventID(HardEvent event) {
  const TEventID id = FetchEventID(event);
  detail::State("TPipe::AllocEventID").event_ids_taken[int(event)] |= uint8_t(1u << id);
  return id;
}

void TPipe::ReleaseEventID(HardEvent event, TEventID id) {
  if (event >= HardEvent::MAX || id < 0 || id >= kMaxEventId) {
    KernelFail("TPipe::ReleaseEventID", "event id " + std::to_string(int(id)) + " is outside 0.." +
                                            std::to_string(kMaxEventId - 1));
  }
  uint8_t& taken = detail::State("TPipe::ReleaseEventID").event_ids_taken[int(event)];
  if ((taken >> id & 1) == 0) {
    KernelFail("TPipe::ReleaseEventID", "event id " + std::to_string(int(id)) +
                                            " of HardEvent::" + HardEventName(event) +
                                            " was not taken by AllocEventID");
  }
  taken = uint8_t(taken & ~(1u << id));
}

TPipe* GetTPipePtr() {
  TPipe* pipe = detail::State("GetTPipePtr").pipe;
  if (pipe == nullptr) KernelFail("GetTPipePtr", "no TPipe is alive in this block");
  return pipe;
}

namespace detail {

// Outside a kernel (host-side tests of the instructions) the calling thread has the registers.
VectorMaskState& MaskRegister() {
  static thread_local VectorMaskState host;
  if (device::CurrentBlock() == nullptr) return host;
  return State("SetVectorMask").mask;
}

ReduceSpr& ReduceRegister() {
  static thread_local ReduceSpr host;
  if (device::CurrentBlock() == nullptr) return host;
  return State("GetReduceRepeatSumSpr").reduce_spr;
}

uint64_t* CmpMaskRegister() {
  static thread_local uint64_t host[2] = {};
  if (device::CurrentBlock() == nullptr) return host;
  return State("GetCmpMask").cmp_mask;
}

void* PositionAddress(TPosition pos, uint64_t addr, uint64_t bytes) {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr) KernelFail("LocalTensor", "constructed outside a kernel");
  if (pos == TPosition::GM || pos == TPosition::CO2) {
    KernelFail("LocalTensor",
               std::string("position ") + TPositionName(pos) + " is not an on-chip memory");
  }
  const Memory m = MemoryOf(pos);
  std::byte* base = nullptr;
  size_t capacity = 0;
  Arena(*ctx, m, &base, &capacity);
  if (base == nullptr || addr % 32 != 0 || addr + bytes > capacity) {
    KernelFail("LocalTensor",
               std::string(TPositionName(pos)) + " tensor at byte " + std::to_string(addr) +
                   " of " + std::to_string(bytes) + " bytes " +
                   (base == nullptr  ? std::string("on a core without ") + MemoryName(m)
                    : addr % 32 != 0 ? "is not 32-byte aligned"
                                     : "exceeds the " + std::to_string(capacity) + " bytes of " +
                                           MemoryName(m)));
  }
  return base + addr;
}

}  // namespace detail

void SetMaskCount() {
  detail::MaskRegister().counter = true;
}
void SetMaskNorm() {
  detail::MaskRegister().counter = false;
}
void ResetMask() {
  detail::VectorMaskState& m = detail::MaskRegister();
  m.bits[0] = ~uint64_t{0};
  m.bits[1] = ~uint64_t{0};
}

uint64_t TPipe::FreeBytes() const {
  const device::BlockContext* ctx = device::CurrentBlock();
  if (ctx == nullptr || ctx->layer_state == nullptr) return 0;
  auto* state = static_cast<detail::KernelBlockState*>(ctx->layer_state);
  const uint64_t used = state->used[static_cast<int>(detail::Memory::kUb)];
  return used >= ctx->ub_bytes ? 0 : ctx->ub_bytes - used;
}

std::byte* TPipe::StackBuffer(uint64_t* bytes) {
  if (!alive_) KernelFail("PopStackBuffer", "the pipe was destroyed");
  detail::KernelBlockState& state = detail::State("PopStackBuffer");
  std::byte* base = nullptr;
  size_t capacity = 0;
  detail::Arena(*device::CurrentBlock(), detail::Memory::kUb, &base, &capacity);
  const uint64_t used = state.used[static_cast<int>(detail::Memory::kUb)];
  *bytes = base == nullptr || used >= capacity ? 0 : capacity - used;
  if (*bytes == 0) return nullptr;
  // Fresh scratch: in checked mode reading it before writing is reported.
  if (CheckedLaunch()) detail::ShadowFresh(base + used, *bytes);
  return base + used;
}

std::byte* TPipe::Take(uint64_t bytes, TPosition pos) {
  if (!alive_) KernelFail("TPipe::InitBuffer", "the pipe was destroyed");
  detail::KernelBlockState& state = detail::State("TPipe::InitBuffer");
  const detail::Memory m = detail::MemoryOf(pos);
  std::byte* base = nullptr;
  size_t capacity = 0;
  const device::BlockContext& ctx = *device::CurrentBlock();
  detail::Arena(ctx, m, &base, &capacity);
  // The AIC of a MIX kernel runs the kernel's vector-side set-up too: the vendor's TPipe assigns
  // UB addresses there (the AIC never touches them), so the buffers are counted against the
  // profile's UB and have no memory; using one on the AIC fails (AllocTensor, TBuf::Get).
  const bool addresses_only = m == detail::Memory::kUb && base == nullptr &&
                              ctx.core_type == device::CoreType::kAic &&
                              ctx.kernel_type == device::KernelType::kMix;
  if (addresses_only) capacity = device::CurrentArch().ub_bytes;
  uint64_t& used = state.used[static_cast<int>(m)];
  if ((base == nullptr && !addresses_only) || used + bytes > capacity) {
    KernelFail("TPipe::InitBuffer",
               std::string(detail::MemoryName(m)) + " buffer size is " +
                   std::to_string(used + bytes) + ", exceeds the limit " +
                   std::to_string(capacity) + " (" + TPositionName(pos) + " on a " +
                   device::CoreTypeName(device::CurrentBlock()->core_type) + " core)");
  }
  if (addresses_only) {
    used += bytes;
    return nullptr;
  }
  std::byte* p = base + used;
  used += bytes;
  if (m == detail::Memory::kUb && CheckedLaunch()) detail::ShadowFresh(p, bytes);
  return p;
}

namespace detail {

void CheckPoolMemory(TPosition pool, TPosition pos, const char* api) {
  if (MemoryOf(pos) != MemoryOf(pool) || pos == TPosition::GM || pos == TPosition::CO2) {
    KernelFail(api,
               std::string("position ") + TPositionName(pos) + " (" +
                   (pos == TPosition::GM || pos == TPosition::CO2 ? "not on-chip"
                                                                  : MemoryName(MemoryOf(pos))) +
                   ") is not in the memory of the pool's position " + TPositionName(pool) + " (" +
                   MemoryName(MemoryOf(pool)) + ")");
  }
}

void BufPoolBase::AttachPool(std::byte* base, uint64_t bytes, const char* api) {
  if (bytes_ != 0) KernelFail(api, "the pool already has memory");
  if (bytes == 0) KernelFail(api, "pool length 0: expected a length > 0");
  reset_ = false;
  base_ = base;
  bytes_ = bytes;
  used_ = 0;
  buffers_ = 0;
  offset_ = 0;
  if (base != nullptr) {
    std::byte* arena = nullptr;
    size_t capacity = 0;
    Arena(*device::CurrentBlock(), MemoryOf(pos_), &arena, &capacity);
    offset_ = static_cast<uint32_t>(base - arena);
  }
}

void BufPoolBase::SharePool(const BufPoolBase& other, uint64_t bytes, const char* api) {
  other.CheckAttached(api);
  if (MemoryOf(other.pos_) != MemoryOf(pos_)) {
    KernelFail(api, std::string("a pool at ") + TPositionName(pos_) + " cannot share a pool at " +
                        TPositionName(other.pos_));
  }
  if (bytes > other.bytes_) {
    KernelFail(api, "the pool's " + std::to_string(bytes) + " bytes exceed the shared pool's " +
                        std::to_string(other.bytes_));
  }
  AttachPool(nullptr, bytes, api);
  base_ = other.base_;
  offset_ = other.offset_;
}

void BufPoolBase::CheckAttached(const char* api) const {
  if (bytes_ != 0) return;
  if (reset_) {
    KernelFail(api,
               "the pool was Reset; the vendor clears its start and length, so it cannot be carved "
               "or shared again. Share its bytes with another pool before the Reset");
  }
  KernelFail(api, "the pool has no memory: call TPipe::InitBufPool first");
}

std::byte* BufPoolBase::Carve(uint64_t bytes, uint32_t buffers, const char* api) {
  CheckAttached(api);
  if (used_ + bytes > bytes_) {
    KernelFail(api, "the pool's buffers need " + std::to_string(used_ + bytes) +
                        " bytes, more than its " + std::to_string(bytes_));
  }
  if (buffers_ + buffers > max_buffers_) {
    KernelFail(api, "the pool holds " + std::to_string(max_buffers_) + " buffers (bufIDSize); " +
                        std::to_string(buffers_ + buffers) + " asked");
  }
  std::byte* p = base_ == nullptr ? nullptr : base_ + used_;
  used_ += bytes;
  buffers_ += buffers;
  // A pool's bytes may hold an earlier stage's data: a new buffer starts out unwritten.
  if (p != nullptr && buffers > 0 && CheckedLaunch()) ShadowFresh(p, bytes);
  return p;
}

void BufPoolBase::SetCurAddr(uint32_t addr, const char* api) {
  CheckAttached(api);
  if (addr < offset_ || addr - offset_ > bytes_) {
    KernelFail(api, "address " + std::to_string(addr) + " is outside the pool [" +
                        std::to_string(offset_) + ", " + std::to_string(offset_ + bytes_) + "]");
  }
  used_ = addr - offset_;
}

void BufPoolBase::set_buffers(uint32_t n, const char* api) {
  if (n > max_buffers_) {
    KernelFail(api, std::to_string(n) + " buffers exceed the pool's " +
                        std::to_string(max_buffers_) + " (bufIDSize)");
  }
  buffers_ = n;
}

std::byte* BufPoolBase::Address(uint32_t addr, uint64_t len, const char* api) const {
  CheckAttached(api);
  if (addr < offset_ || uint64_t{addr} - offset_ + len > bytes_) {
    KernelFail(api, "bytes [" + std::to_string(addr) + ", " + std::to_string(addr + len) +
                        ") are outside the pool [" + std::to_string(offset_) + ", " +
                        std::to_string(offset_ + bytes_) + ")");
  }
  if (addr % 32 != 0)
    KernelFail(api, "address " + std::to_string(addr) + " is not 32-byte aligned");
  std::byte* p = base_ == nullptr ? nullptr : base_ + (addr - offset_);
  // The placed buffer may hold an earlier stage's data: it starts out unwritten.
  if (p != nullptr && CheckedLaunch()) ShadowFresh(p, len);
  return p;
}

std::byte* PoolAddress(const BufPoolBase& pool, uint32_t addr, uint64_t len, const char* api) {
  return pool.Address(addr, len, api);
}

void CheckBufferCount(int64_t num, const char* api) {
  if (num < 1 || num > kMaxBuffersPerQueue) {
    KernelFail(api, "buffer number " + std::to_string(num) + " is out of range; expected 1.." +
                        std::to_string(kMaxBuffersPerQueue));
  }
}

TPosition PoolPosition(const BufPoolBase& pool) {
  return pool.pool_position();
}

void QueueBase::InitStartBufHandle(TBufHandle /*start*/, uint8_t num, uint32_t len) {
  CheckBufferCount(num, "TQue::InitStartBufHandle");
  if (attached()) KernelFail("TQue::InitStartBufHandle", Name() + " already has buffers");
  Attach(nullptr, num, static_cast<uint32_t>(PoolRound(len)), CheckedLaunch());
  placing_ = true;
  placed_ = 0;
}

void QueueBase::Place(uint32_t index, uint32_t addr, std::byte* p, uint32_t len) {
  if (index >= static_cast<uint32_t>(num_) || len != bytes_each_) {
    KernelFail("TQue::InitBufHandle", Name() + ": buffer " + std::to_string(index) + " of " +
                                          std::to_string(len) + " bytes; InitStartBufHandle gave " +
                                          std::to_string(num_) + " buffers of " +
                                          std::to_string(bytes_each_));
  }
  for (int32_t j = 0; j < num_; ++j) {
    if (j == static_cast<int32_t>(index) || (placed_ >> j & 1u) == 0) continue;
    if (uint64_t{addr} < uint64_t{placed_addr_[j]} + len &&
        uint64_t{placed_addr_[j]} < uint64_t{addr} + len) {
      KernelFail("TQue::InitBufHandle", Name() + ": buffer " + std::to_string(index) +
                                            " at address " + std::to_string(addr) +
                                            " overlaps buffer " + std::to_string(j) +
                                            " at address " + std::to_string(placed_addr_[j]) +
                                            " (" + std::to_string(len) + " bytes each)");
    }
  }
  slots_[index].addr = p;
  placed_addr_[index] = addr;
  placed_ |= 1u << index;
}

}  // namespace detail

void TPipe::Reset() {
  if (!alive_) KernelFail("TPipe::Reset", "the pipe was destroyed");
  detail::KernelBlockState& state = detail::State("TPipe::Reset");
  for (int m = 0; m < static_cast<int>(detail::Memory::kCount); ++m)
    state.used[m] = start_[m];
}

}  // namespace tessera::kernel
