// Internals of the Matmul API: the GM workspace layout and the MIX client/server handshake
// (see "The Matmul API" in docs/cube.md). Included by tessera/kernel/matmul/matmul.h.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "tessera/device/block.h"
#include "tessera/device/gm_access.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/check.h"
#include "tessera/tiling/matmul_tiling.h"

namespace tessera::kernel::detail {

// The workspace argument of REGIST_MATMUL_OBJ (a GM_ADDR, another pointer, or nullptr).
template <class P>
void* AsWorkspace(P p) {
  if constexpr (std::is_null_pointer_v<P>) {
    return nullptr;
  } else {
    return const_cast<void*>(static_cast<const volatile void*>(p));
  }
}

// Fails the block with `what` when `cond` is false.
inline void MatmulRequire(bool cond, const char* api, const std::string& what) {
  if (!cond) KernelFail(api, what);
}

inline constexpr uint32_t kMatmulReqFlag = 0;                // AIV -> AIC: a request is posted
inline constexpr uint32_t kMatmulReplyFlag = 1;              // AIC -> AIVs: a request was served
inline constexpr uint64_t kMatmulCBufferBytes = 128 * 1024;  // one base block of C (<= L0C)
inline constexpr uint64_t kMatmulMailboxBytes = 1024;
inline constexpr uint64_t kMatmulHeaderBytes = 256;
inline constexpr uint64_t kMatmulSlotBytes = kMatmulMailboxBytes + kMatmulCBufferBytes;
inline constexpr uint64_t kMatmulGroupBytes = kMatmulHeaderBytes + 2 * kMatmulSlotBytes;

// One unit of cube work: C[rows x cols] of a core's block (from row m0, column n0) in base
// blocks, written to `dst` with row pitch `dstPitch` (base block (i, j) of the region at
// dst + i*baseM*dstPitch + j*baseN).
struct MatmulJob {
  const void* a = nullptr;
  const void* b = nullptr;
  const void* bias = nullptr;  // null: no bias
  void* dst = nullptr;
  int64_t orgM = 0, orgN = 0, orgKa = 0, orgKb = 0;
  int64_t k = 0;  // singleCoreK
  int64_t m0 = 0, n0 = 0, rows = 0, cols = 0;
  int64_t dstPitch = 0;
  int32_t baseM = 0, baseN = 0, baseK = 0;
  int32_t iterateOrder = 0;
  bool aTrans = false, bTrans = false;
};

// A request in the GM mailbox of one AIV. `serve` is the engine instantiation for the object's
// types (host and device share one address space).
struct MatmulRequest {
  enum class Kind : uint32_t { kCompute = 1, kQuit = 2 };
  Kind kind = Kind::kCompute;
  void (*serve)(const MatmulJob&) = nullptr;
  MatmulJob job;
};
static_assert(sizeof(MatmulRequest) + 64 <= kMatmulMailboxBytes);

// Workspace of one group: a header, then per AIV a mailbox and a C buffer.
struct MatmulGroupHeader {
  uint64_t replies;     // reply-flag sets so far (the clients drain up to it)
  uint64_t terminated;  // 1 once both clients quit
  uint64_t rings;       // request-flag rings by the clients (two sets each)
  uint64_t throttled;   // 1 while the server waits for a client to drain reply counts
};
struct MatmulMailbox {
  uint64_t posted;  // requests posted by the AIV (the server serves posted > served)
  uint64_t served;  // requests finished by the AIC
  uint64_t waits;   // reply-flag counts this AIV has consumed
  MatmulRequest request;
};

inline std::byte* MatmulGroupBase(void* workspace, uint32_t group) {
  return static_cast<std::byte*>(workspace) + uint64_t{group} * kMatmulGroupBytes;
}
inline MatmulGroupHeader* MatmulHeader(void* workspace, uint32_t group) {
  return reinterpret_cast<MatmulGroupHeader*>(MatmulGroupBase(workspace, group));
}
inline MatmulMailbox* MatmulMailboxOf(void* workspace, uint32_t group, uint32_t sub) {
  return reinterpret_cast<MatmulMailbox*>(MatmulGroupBase(workspace, group) + kMatmulHeaderBytes +
                                          uint64_t{sub} * kMatmulSlotBytes);
}
inline std::byte* MatmulCBuffer(void* workspace, uint32_t group, uint32_t sub) {
  return MatmulGroupBase(workspace, group) + kMatmulHeaderBytes + uint64_t{sub} * kMatmulSlotBytes +
         kMatmulMailboxBytes;
}

// The handshake words are shared by fibers on different threads (GCC/Clang atomic builtins, as
// std::atomic_ref is C++20 and kernels build as C++17); seq_cst keeps the
// throttled/waits pair free of lost wake-ups (each side writes one, then reads the other).
// In checked mode they are also release/acquire points of the race check (gm_access.h): the C
// buffer a server wrote before Store(served) is ordered before the client's reads after it.
inline uint64_t Load(const uint64_t& v) {
  const uint64_t x = __atomic_load_n(&v, __ATOMIC_SEQ_CST);
  device::NoteAcquire(&v);
  return x;
}
inline void Store(uint64_t& v, uint64_t x) {
  device::NoteRelease(&v);
  __atomic_store_n(&v, x, __ATOMIC_SEQ_CST);
}
inline void FetchAdd(uint64_t& v, uint64_t x) {
  device::NoteRelease(&v);
  __atomic_fetch_add(&v, x, __ATOMIC_SEQ_CST);
  device::NoteAcquire(&v);
}

inline int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
inline int64_t RoundUp(int64_t a, int64_t b) {
  return CeilDiv(a, b) * b;
}

// Per-block client state of the MIX protocol (kept in the AIV's REGIST guard).
struct MatmulClientLink {
  void* workspace = nullptr;
  uint32_t group = 0;
  uint32_t sub = 0;
  uint64_t waits = 0;  // reply-flag waits done by this AIV
};

// Wakes the server. On 2201 the AIC's count of a mode-2 flag rises once per two AIV sets (its
// wait pairs both AIVs), so a client rings with two sets and wakes the server on its own.
inline void MatmulRing(MatmulClientLink& link) {
  FetchAdd(MatmulHeader(link.workspace, link.group)->rings, 1);
  device::CrossCoreSetFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReqFlag);
  device::CrossCoreSetFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReqFlag);
}

// Every reply set of the server reaches both AIVs of the group (mode 2), so each client consumes
// the counts meant for its sibling too. A client publishes what it consumed; a server that would
// push a client past the hardware's 15 pending counts waits (throttled) until that client drains
// and rings.
inline void MatmulConsumeReply(MatmulClientLink& link) {
  device::CrossCoreWaitFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReplyFlag);
  ++link.waits;
  Store(MatmulMailboxOf(link.workspace, link.group, link.sub)->waits, link.waits);
  // One ring per throttle episode (whoever takes the token), so the server's own counter never
  // piles up either.
  uint64_t& throttled = MatmulHeader(link.workspace, link.group)->throttled;
  device::NoteRelease(&throttled);
  const uint64_t was = __atomic_exchange_n(&throttled, uint64_t{0}, __ATOMIC_SEQ_CST);
  device::NoteAcquire(&throttled);
  if (was != 0) MatmulRing(link);
}
// Waits for the server to finish this AIV's request number `seq`.
inline void MatmulAwaitReply(MatmulClientLink& link, uint64_t seq) {
  MatmulMailbox* box = MatmulMailboxOf(link.workspace, link.group, link.sub);
  while (Load(box->served) < seq)
    MatmulConsumeReply(link);
}
// Consumes the reply counts the server has announced so far.
inline void MatmulDrain(MatmulClientLink& link) {
  while (link.waits < Load(MatmulHeader(link.workspace, link.group)->replies))
    MatmulConsumeReply(link);
}
inline void MatmulPost(MatmulClientLink& link, const MatmulRequest& req) {
  MatmulDrain(link);
  MatmulMailbox* box = MatmulMailboxOf(link.workspace, link.group, link.sub);
  std::memcpy(&box->request, &req, sizeof(req));
  const uint64_t seq = Load(box->posted) + 1;
  Store(box->posted, seq);
  MatmulRing(link);
  MatmulAwaitReply(link, seq);
}

// The AIC's server loop: serves both AIVs' requests until both quit.
inline void MatmulServe(void* workspace) {
  const uint32_t group = device::GetBlockIdx();
  MatmulGroupHeader* header = MatmulHeader(workspace, group);
  uint64_t served[2] = {0, 0};
  bool quit[2] = {false, false};
  uint64_t waits = 0;
  const auto wait = [&] {
    device::CrossCoreWaitFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReqFlag);
    ++waits;
  };
  const auto reply = [&] {
    const uint64_t next = Load(header->replies) + 1;
    while (true) {
      Store(header->throttled, 1);
      bool fits = true;
      for (uint32_t s = 0; s < 2; ++s)
        fits = fits && next - Load(MatmulMailboxOf(workspace, group, s)->waits) <=
                           device::kMaxCrossCoreFlagCount;
      if (fits) break;
      wait();
    }
    Store(header->throttled, 0);
    Store(header->replies, next);
    device::CrossCoreSetFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReplyFlag);
  };
  while (!(quit[0] && quit[1])) {
    // Consume the wake-ups of every ring announced so far (requests found while busy included),
    // so the server's own flag never holds more than a few counts.
    while (waits < Load(header->rings))
      wait();
    bool any = false;
    for (uint32_t s = 0; s < 2; ++s) {
      MatmulMailbox* box = MatmulMailboxOf(workspace, group, s);
      if (Load(box->posted) <= served[s]) continue;
      any = true;
      const MatmulRequest& req = box->request;
      if (req.kind == MatmulRequest::Kind::kQuit) {
        quit[s] = true;
      } else {
        req.serve(req.job);
      }
      Store(box->served, ++served[s]);
      if (!(quit[0] && quit[1])) reply();
    }
    if (!any) wait();
  }
  Store(header->terminated, 1);
  reply();
  // Consume the remaining wake-ups (one per ring) so no count is left behind.
  while (waits < Load(header->rings))
    wait();
}

// True when `p` is the running launch's GetSysWorkSpacePtr() buffer (its size in *size).
bool IsSysWorkspace(const void* p, uint64_t* size);
// The running block stops holding its launch's system workspace (the last holder frees it).
void ReleaseSysWorkspace();

// What REGIST_MATMUL_OBJ leaves in the kernel's scope: on an AIV of a MIX kernel it links the
// objects to the group's server and, when the kernel returns, tells the server this client quit
// and waits for it to finish.
class MatmulRegistration {
 public:
  MatmulRegistration(void* workspace, bool cube_only) {
    const device::BlockContext* ctx = device::CurrentBlock();
    if (ctx == nullptr) KernelFail("REGIST_MATMUL_OBJ", "call it inside a kernel");
    uint64_t sys_bytes = 0;
    sys_ = IsSysWorkspace(workspace, &sys_bytes);
    if (cube_only || ctx->kernel_type != device::KernelType::kMix) return;
    if (workspace == nullptr) {
      KernelFail("REGIST_MATMUL_OBJ",
                 "the workspace is null; a MIX kernel needs MatmulWorkspaceBytes(blockDim) bytes "
                 "of GM for the Matmul server");
    }
    if (!sys_ && ctx->checked) {
      const size_t have = device::DeviceBytesFrom(workspace);
      const uint64_t need = uint64_t{ctx->block_num} * kMatmulGroupBytes;
      if (have < need) {
        KernelFail("REGIST_MATMUL_OBJ", "the workspace has " + std::to_string(have) +
                                            " bytes; a MIX launch of " +
                                            std::to_string(ctx->block_num) + " groups needs " +
                                            std::to_string(need) + " (MatmulWorkspaceBytes)");
      }
    }
    if (ctx->core_type == device::CoreType::kAic) {
      // Reset the group's mailboxes, then release the clients (one reply count each).
      const uint32_t group = ctx->block_idx;
      MatmulGroupHeader* h = MatmulHeader(workspace, group);
      Store(h->terminated, 0);
      Store(h->rings, 0);
      Store(h->throttled, 0);
      for (uint32_t s = 0; s < 2; ++s) {
        Store(MatmulMailboxOf(workspace, group, s)->posted, 0);
        Store(MatmulMailboxOf(workspace, group, s)->served, 0);
        Store(MatmulMailboxOf(workspace, group, s)->waits, 0);
      }
      Store(h->replies, 1);
      device::CrossCoreSetFlag(device::CrossCoreMode::kGroupCubeVector, kMatmulReplyFlag);
      server_ = true;
      workspace_ = workspace;
      return;
    }
    link_.workspace = workspace;
    link_.group = ctx->block_idx / ctx->sub_block_num;
    link_.sub = ctx->sub_block_idx;
    client_ = true;
    MatmulConsumeReply(link_);  // the server's "ready" count
  }
  // May throw (the block's abort when the launch failed while it waited): it runs only on a normal
  // return from the kernel, never during unwinding.
  ~MatmulRegistration() noexcept(false) {
    struct Release {
      bool sys;
      ~Release() {
        if (sys) ReleaseSysWorkspace();
      }
    } release{sys_};
    if (!client_ || std::uncaught_exceptions() > 0) return;
    MatmulRequest quit;
    quit.kind = MatmulRequest::Kind::kQuit;
    MatmulMailbox* box = MatmulMailboxOf(link_.workspace, link_.group, link_.sub);
    MatmulDrain(link_);
    std::memcpy(&box->request, &quit, sizeof(quit));
    Store(box->posted, Load(box->posted) + 1);
    MatmulRing(link_);
    MatmulGroupHeader* h = MatmulHeader(link_.workspace, link_.group);
    while (Load(h->terminated) == 0)
      MatmulConsumeReply(link_);
    MatmulDrain(link_);
  }
  MatmulRegistration(const MatmulRegistration&) = delete;
  MatmulRegistration& operator=(const MatmulRegistration&) = delete;

  // True on the AIC of a MIX kernel: run the server, then leave the kernel.
  bool server() const { return server_; }
  void Serve() { MatmulServe(workspace_); }
  MatmulClientLink* link() { return client_ ? &link_ : nullptr; }

  template <class MM>
  void Attach(MM& mm, const tiling::TCubeTiling* tiling) {
    if (server_) return;  // the AIC only serves
    // A null tiling registers the object with its constant tiling, or for Init(&tiling) later.
    if (tiling != nullptr) {
      mm.Init(tiling);
    } else {
      mm.InitFromConfig();  // a constant tiling; otherwise the kernel calls Init later
    }
    if (client_) mm.AttachClient(&link_);
  }
  template <class MM, class... Rest>
  void Attach(MM& mm, const tiling::TCubeTiling* tiling, Rest&&... rest) {
    static_assert(sizeof...(Rest) / 2 < 4, "REGIST_MATMUL_OBJ registers at most 4 Matmul objects");
    Attach(mm, tiling);
    Attach(rest...);
  }

 private:
  MatmulClientLink link_;
  void* workspace_ = nullptr;
  bool client_ = false;
  bool server_ = false;
  bool sys_ = false;  // the workspace is the launch's GetSysWorkSpacePtr() buffer
};

}  // namespace tessera::kernel::detail
