// The high-level Matmul API (Ascend C's Matmul<A, B, C, BIAS>, MatmulType, REGIST_MATMUL_OBJ).
//
//   using A = MatmulType<TPosition::GM, CubeFormat::ND, half>;
//   using C = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
//   Matmul<A, A, C, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;
//   REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling);   // MIX: before pipe.InitBuffer
//   mm.SetTensorA(aGm); mm.SetTensorB(bGm); mm.SetBias(biasGm);
//   while (mm.Iterate()) { mm.GetTensorC(ubTensor, false, true); ... }
//   mm.End();
//
// Modes, as on the 2201 NPU:
//  - MIX kernel (launched KernelType::kMix): the object lives on each AIV as a client; the AIC of
//    the group runs a server inside REGIST_MATMUL_OBJ that does the cube work (DataCopy ND->Nz,
//    LoadData, Mmad, Fixpipe) for both AIVs' requests and then leaves the kernel (user code after
//    REGIST_MATMUL_OBJ does not run on the AIC). Requests and C blocks for a VECIN target travel
//    through the GM workspace; cross-core flags 0 and 1 wake the server and the clients. The two
//    AIVs of a group are independent clients. The workspace needs MatmulWorkspaceBytes(blockDim).
//  - Pure cube (an AIC kernel, or ASCENDC_CUBE_ONLY defined): the object computes directly on the
//    AIC, using its L1/L0A/L0B/L0C/bias table from their start (do not place other buffers there).
//
// Blocks: a core computes singleCoreM x singleCoreN of C (SetSingleShape/SetTail for its tail) in
// base blocks of baseM x baseN; Iterate() steps to the next base block (M fastest when
// iterateOrder is 0), GetTensorC writes it: to GM at its place in the core's block (row pitch N),
// or with enSequentialWrite at the tensor's start with row pitch baseN; to a VECIN (UB) tensor
// always as a baseM x baseN tile with row pitch baseN (a tail block fills its top-left corner).
// Row pitches: A is M x Ka (transposed: Ka x M), B is Kb x N (transposed: N x Kb), C is M x N, all
// at most 65535 (the ND->Nz copy's limit). Only synchronous calls (Iterate<true>, GetTensorC<true>)
// and enAtomic = 0 are supported.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/device/arch_spec.h"
#include "tessera/device/block.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/cube/cube.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/kernel.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/pipe.h"
#include "tessera/tiling/matmul_tiling.h"

namespace tessera::kernel {

using tiling::TCubeTiling;

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };

// An operand of the Matmul: where it lives, its format and element type; ISTRANS allows
// SetTensorA/B(..., true).
template <TPosition POSITION, CubeFormat FORMAT, class TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false,
          TPosition SRCPOS = TPosition::GM>
struct MatmulType {
  static constexpr TPosition pos = POSITION;
  static constexpr CubeFormat format = FORMAT;
  using T = TYPE;
  static constexpr bool isTrans = ISTRANS;
  static constexpr LayoutMode layout = LAYOUT;
  static constexpr bool ibShare = IBSHARE;
  static constexpr TPosition srcPos = SRCPOS;
};

// Matmul configurations (tessera runs every configuration the same way; the names exist so vendor
// kernels compile).
struct MatmulConfig {
  bool doNorm = true;
  bool doMultiDataLoad = false;
  bool enUnitFlag = true;
};
inline constexpr MatmulConfig CFG_NORM{true, false, true};
inline constexpr MatmulConfig CFG_MDL{false, true, false};

// GM bytes REGIST_MATMUL_OBJ needs in a MIX launch of `block_dim` groups (host or kernel).
constexpr uint64_t MatmulWorkspaceBytes(uint32_t block_dim);

namespace detail {

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

// The handshake words are shared by fibers on different threads; seq_cst keeps the
// throttled/waits pair free of lost wake-ups (each side writes one, then reads the other).
inline uint64_t Load(const uint64_t& v) {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(v)).load(std::memory_order_seq_cst);
}
inline void Store(uint64_t& v, uint64_t x) {
  std::atomic_ref<uint64_t>(v).store(x, std::memory_order_seq_cst);
}
inline void FetchAdd(uint64_t& v, uint64_t x) {
  std::atomic_ref<uint64_t>(v).fetch_add(x, std::memory_order_seq_cst);
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
  if (std::atomic_ref<uint64_t>(throttled).exchange(0, std::memory_order_seq_cst) != 0)
    MatmulRing(link);
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

// ---- the cube engine: one job on this AIC -----------------------------------------------------

template <class T>
constexpr int64_t C0Of() {
  return 32 / static_cast<int64_t>(sizeof(T));
}
template <class T>
constexpr int64_t FractalElems() {
  return 512 / static_cast<int64_t>(sizeof(T));
}

template <class CT>
constexpr QuantMode_t QuantFor() {
  if constexpr (std::is_same_v<CT, half>) return QuantMode_t::F322F16;
  if constexpr (std::is_same_v<CT, bfloat16>) return QuantMode_t::F322BF16;
  return QuantMode_t::NoQuant;
}

// L1 -> L0A in Zz for A[m x k] (K1 = ceil(k/C0)), from A (Nz, Mp rows) or A^T (see CopyA).
template <class T>
void LoadA(const LocalTensor<T>& a2, const LocalTensor<T>& a1, int64_t m, int64_t k, bool trans) {
  constexpr int64_t c0 = C0Of<T>(), fe = FractalElems<T>();
  const int64_t m1 = CeilDiv(m, 16), k1 = CeilDiv(k, c0);
  if (!trans) {
    for (int64_t i = 0; i < m1; ++i)
      LoadData(a2[static_cast<uint32_t>(i * k1 * fe)], a1[static_cast<uint32_t>(i * fe)],
               LoadData2DParams(0, k1, m1, 0, 0, false, 0));
    return;
  }
  if constexpr (sizeof(T) == 2) {
    // A^T in Nz (Kp = 16*k1 rows): fractal (k1, m1) at index m1*k1 + k1, transposed in place.
    const int64_t total = m1 * k1;
    for (int64_t done = 0; done < total; done += 255) {
      const int64_t n = std::min<int64_t>(255, total - done);
      LoadData(a2[static_cast<uint32_t>(done * fe)], a1,
               LoadData2DParams(done, n, 1, 0, 0, true, 0));
    }
  } else if constexpr (sizeof(T) == 4) {
    // A^T copied as 16-row slabs (each its own Nz matrix of 16 rows, 2*m1 column blocks): square j
    // of slab s is 16 k x 16 m; transposed it gives Zz fractals (j, 2s) and (j, 2s + 1).
    const int64_t slabs = CeilDiv(k, 16), slab = 16 * 16 * m1;
    for (int64_t j = 0; j < m1; ++j)
      for (int64_t s = 0; s < slabs; ++s)
        LoadDataWithTranspose(a2[static_cast<uint32_t>((j * k1 + 2 * s) * fe)],
                              a1[static_cast<uint32_t>(s * slab)],
                              LoadData2dTransposeParams(j, 1, 0, 0, 0, 0));
  } else {
    // A^T in Nz with Hp = 32*ceil(k/32) rows: square (w, s) = 32 k x 32 m at index w*(Hp/32) + s;
    // transposed it gives Zz fractals (2w, s) and (2w + 1, s), k1 fractals apart.
    const int64_t hp32 = CeilDiv(k, 32), w1 = CeilDiv(m, 32);
    for (int64_t w = 0; w < w1; ++w)
      for (int64_t s = 0; s < hp32; ++s)
        LoadDataWithTranspose(a2[static_cast<uint32_t>((2 * w * k1 + s) * fe)], a1,
                              LoadData2dTransposeParams(w * hp32 + s, 1, 0, 0, k1 - 1, 0));
  }
}

// L1 -> L0B in Zn for B[k x n] (N1 = ceil(n/16)), from B (row-major source) or B^T.
template <class T>
void LoadB(const LocalTensor<T>& b2, const LocalTensor<T>& b1, int64_t k, int64_t n, bool trans) {
  constexpr int64_t c0 = C0Of<T>(), fe = FractalElems<T>();
  const int64_t n1 = CeilDiv(n, 16), k1 = CeilDiv(k, c0);
  if (trans) {
    // B^T [n x k] in Nz is already Zn fractal by fractal.
    const int64_t total = n1 * k1;
    for (int64_t done = 0; done < total; done += 255) {
      const int64_t cnt = std::min<int64_t>(255, total - done);
      LoadData(b2[static_cast<uint32_t>(done * fe)], b1,
               LoadData2DParams(done, cnt, 1, 0, 0, false, 0));
    }
    return;
  }
  if constexpr (sizeof(T) == 2) {
    for (int64_t i = 0; i < k1; ++i)
      LoadData(b2[static_cast<uint32_t>(i * n1 * fe)], b1[static_cast<uint32_t>(i * fe)],
               LoadData2DParams(0, n1, k1, 0, 0, true, 0));
  } else if constexpr (sizeof(T) == 4) {
    // 16-row slabs; square j of slab s (16 k x 16 n) -> Zn fractals (2s, j) and (2s + 1, j).
    const int64_t slabs = CeilDiv(k, 16), slab = 16 * 16 * n1;
    for (int64_t s = 0; s < slabs; ++s)
      LoadDataWithTranspose(b2[static_cast<uint32_t>(2 * s * n1 * fe)],
                            b1[static_cast<uint32_t>(s * slab)],
                            LoadData2dTransposeParams(0, n1, 1, 0, n1 - 1, 0));
  } else {
    // Hp = 32*ceil(k/32) rows; square (w, s) = 32 k x 32 n -> Zn fractals (s, 2w), (s, 2w + 1).
    const int64_t hp32 = CeilDiv(k, 32), w1 = CeilDiv(n, 32);
    for (int64_t s = 0; s < hp32; ++s)
      LoadDataWithTranspose(b2[static_cast<uint32_t>(s * n1 * fe)], b1,
                            LoadData2dTransposeParams(s, w1, hp32, 1, 0, 0));
  }
}

// GM -> L1 (Nz) of a rows x cols window of a row-major matrix with pitch `pitch`. `slabs16`
// copies 16-row slabs as separate Nz matrices of 16 rows (for the b32 transposes); `hp` is the
// padded row count of the Nz matrix otherwise.
template <class T>
void CopyNz(const LocalTensor<T>& dst, const T* src, int64_t rows, int64_t cols, int64_t pitch,
            int64_t hp, bool slabs16, int64_t slab_cols) {
  GlobalTensor<T> g;
  g.SetGlobalBuffer(const_cast<T*>(src), static_cast<uint64_t>((rows - 1) * pitch + cols));
  if (!slabs16) {
    DataCopy(dst, g, Nd2NzParams(1, rows, cols, 0, pitch, hp, 1, 0));
    return;
  }
  for (int64_t r = 0; r < rows; r += 16) {
    const int64_t n = std::min<int64_t>(16, rows - r);
    DataCopy(dst[static_cast<uint32_t>((r / 16) * 16 * slab_cols)],
             g[static_cast<uint64_t>(r * pitch)], Nd2NzParams(1, n, cols, 0, pitch, 16, 1, 0));
  }
}

// Runs `job` on this AIC with the cube instructions. AT: A/B element type; CT: C (output) type;
// BiasT: the bias type in GM.
template <class AT, class CT, class BiasT>
void RunMatmulJob(const MatmulJob& job) {
  using AccT = std::conditional_t<std::is_same_v<AT, int8_t>, int32_t, float>;
  constexpr int64_t c0 = C0Of<AT>(), fe = FractalElems<AT>();
  LocalMemAllocator<Hardware::L1> l1;
  LocalMemAllocator<Hardware::L0A> l0a;
  LocalMemAllocator<Hardware::L0B> l0b;
  LocalMemAllocator<Hardware::L0C> l0c;
  const int64_t baseM = job.baseM, baseN = job.baseN, baseK = job.baseK;
  // L1 tiles sized for the largest layout any transposition uses (rows/cols rounded to 32).
  const int64_t aL1 = RoundUp(baseM, 32) * RoundUp(baseK, 32);
  const int64_t bL1 = RoundUp(baseN, 32) * RoundUp(baseK, 32);
  LocalTensor<AT> a1 = l1.Alloc<TPosition::A1, AT>(static_cast<uint32_t>(aL1));
  LocalTensor<AT> b1 = l1.Alloc<TPosition::B1, AT>(static_cast<uint32_t>(bL1));
  uint64_t cap = 0;
  uint32_t align = 0;
  detail::HardwareArena(Hardware::L0A, &cap, &align);
  const int64_t aL0 = static_cast<int64_t>(cap / sizeof(AT));
  detail::HardwareArena(Hardware::L0B, &cap, &align);
  const int64_t bL0 = static_cast<int64_t>(cap / sizeof(AT));
  detail::HardwareArena(Hardware::L0C, &cap, &align);
  const int64_t cL0 = static_cast<int64_t>(cap / sizeof(AccT));
  // The b8/b32 transposing loads write whole squares, up to one fractal row past the tile.
  const int64_t k1 = CeilDiv(baseK, c0), m1 = CeilDiv(baseM, 16), n1 = CeilDiv(baseN, 16);
  const int64_t spare = sizeof(AT) == 2 ? 0 : 1;
  const int64_t aNeed = (job.aTrans ? (m1 + spare) * (k1 + spare) : m1 * k1) * fe;
  const int64_t bNeed = (job.bTrans ? n1 * k1 : (n1 + spare) * (k1 + spare)) * fe;
  if (aNeed > aL0 || bNeed > bL0 || RoundUp(baseM, 16) * RoundUp(baseN, 16) > cL0) {
    KernelFail("Matmul", "base block " + std::to_string(baseM) + " x " + std::to_string(baseN) +
                             " x " + std::to_string(baseK) +
                             " does not fit this core's L0A/L0B/L0C (" + std::to_string(aL0) + "/" +
                             std::to_string(bL0) + "/" + std::to_string(cL0) +
                             " elements); compute the tiling for this profile");
  }
  LocalTensor<AT> a2 = l0a.Alloc<TPosition::A2, AT>(static_cast<uint32_t>(aL0));
  LocalTensor<AT> b2 = l0b.Alloc<TPosition::B2, AT>(static_cast<uint32_t>(bL0));
  LocalTensor<AccT> co1 = l0c.Alloc<TPosition::CO1, AccT>(static_cast<uint32_t>(cL0));
  LocalTensor<BiasT> bias1;
  LocalTensor<AccT> bt;
  if (job.bias != nullptr) {
    bias1 = l1.Alloc<TPosition::C1, BiasT>(static_cast<uint32_t>(RoundUp(baseN, 32)));
    LocalMemAllocator<Hardware::BIAS> bta;
    bt = bta.Alloc<TPosition::C2, AccT>(static_cast<uint32_t>(RoundUp(baseN, 16)));
  }
  const auto* a = static_cast<const AT*>(job.a);
  const auto* b = static_cast<const AT*>(job.b);
  auto* dst = static_cast<CT*>(job.dst);
  const int64_t mBlocks = CeilDiv(job.rows, baseM), nBlocks = CeilDiv(job.cols, baseN);
  for (int64_t it = 0; it < mBlocks * nBlocks; ++it) {
    const int64_t bi = job.iterateOrder == 0 ? it % mBlocks : it / nBlocks;
    const int64_t bj = job.iterateOrder == 0 ? it / mBlocks : it % nBlocks;
    const int64_t mm = std::min(baseM, job.rows - bi * baseM);
    const int64_t nn = std::min(baseN, job.cols - bj * baseN);
    const int64_t gm = job.m0 + bi * baseM, gn = job.n0 + bj * baseN;
    const int64_t mEff = std::max<int64_t>(mm, 2);  // m == 1 would switch Mmad to GEMV (ND L0A)
    if (job.bias != nullptr) {
      GlobalTensor<BiasT> g;
      g.SetGlobalBuffer(const_cast<BiasT*>(static_cast<const BiasT*>(job.bias)) + gn,
                        static_cast<uint64_t>(nn));
      DataCopy(bias1, g, Nd2NzParams(1, 1, nn, 0, nn, 1, 1, 0));
      SetFlag<HardEvent::MTE2_MTE1>(0);
      WaitFlag<HardEvent::MTE2_MTE1>(0);
      DataCopy(bt, bias1, DataCopyParams{1, static_cast<uint16_t>(CeilDiv(nn * 4, 64)), 0, 0});
    }
    for (int64_t k0 = 0; k0 < job.k; k0 += baseK) {
      const int64_t kk = std::min(baseK, job.k - k0);
      // A block (gm.., k0..) of A[M x Ka] or of A^T[Ka x M].
      if (!job.aTrans) {
        CopyNz(a1, a + gm * job.orgKa + k0, mm, kk, job.orgKa, RoundUp(mm, 16), false, 0);
      } else if constexpr (sizeof(AT) == 4) {
        CopyNz(a1, a + k0 * job.orgM + gm, kk, mm, job.orgM, 0, true, RoundUp(mm, 16));
      } else {
        CopyNz(a1, a + k0 * job.orgM + gm, kk, mm, job.orgM, RoundUp(kk, sizeof(AT) == 1 ? 32 : 16),
               false, 0);
      }
      if (!job.bTrans) {
        if constexpr (sizeof(AT) == 4) {
          CopyNz(b1, b + k0 * job.orgN + gn, kk, nn, job.orgN, 0, true, RoundUp(nn, 16));
        } else {
          CopyNz(b1, b + k0 * job.orgN + gn, kk, nn, job.orgN,
                 RoundUp(kk, sizeof(AT) == 1 ? 32 : 16), false, 0);
        }
      } else {
        CopyNz(b1, b + gn * job.orgKb + k0, nn, kk, job.orgKb, RoundUp(nn, 16), false, 0);
      }
      SetFlag<HardEvent::MTE2_MTE1>(0);
      WaitFlag<HardEvent::MTE2_MTE1>(0);
      LoadA(a2, a1, mEff, kk, job.aTrans);
      LoadB(b2, b1, kk, nn, job.bTrans);
      SetFlag<HardEvent::MTE1_M>(0);
      WaitFlag<HardEvent::MTE1_M>(0);
      if (k0 == 0 && job.bias != nullptr) {
        Mmad(co1, a2, b2, bt, MmadParams(mEff, nn, kk, 0, false, false));
      } else {
        Mmad(co1, a2, b2, MmadParams(mEff, nn, kk, 0, false, k0 == 0));
      }
      SetFlag<HardEvent::M_MTE1>(0);
      WaitFlag<HardEvent::M_MTE1>(0);
    }
    SetFlag<HardEvent::M_FIX>(0);
    WaitFlag<HardEvent::M_FIX>(0);
    GlobalTensor<CT> out;
    CT* where = dst + bi * baseM * job.dstPitch + bj * baseN;
    out.SetGlobalBuffer(where, static_cast<uint64_t>((mm - 1) * job.dstPitch + nn));
    Fixpipe(out, co1,
            FixpipeParamsV220(nn, mm, RoundUp(mm, 16), job.dstPitch, false, QuantFor<CT>(), 0, 1, 0,
                              0, 0));
    SetFlag<HardEvent::FIX_M>(0);
    WaitFlag<HardEvent::FIX_M>(0);
  }
}

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

}  // namespace detail

constexpr uint64_t MatmulWorkspaceBytes(uint32_t block_dim) {
  return uint64_t{block_dim} * detail::kMatmulGroupBytes;
}

// The buffer sizes of a profile's AI core, for the host tiling classes (host side).
inline tiling::MatmulPlatform MatmulPlatformOf(const device::ArchSpec& arch) {
  tiling::MatmulPlatform p;
  p.l1_bytes = static_cast<int64_t>(arch.l1_bytes);
  p.l0a_bytes = static_cast<int64_t>(arch.l0a_bytes);
  p.l0b_bytes = static_cast<int64_t>(arch.l0b_bytes);
  p.l0c_bytes = static_cast<int64_t>(arch.l0c_bytes);
  p.ub_bytes = static_cast<int64_t>(arch.ub_bytes);
  p.bt_bytes = static_cast<int64_t>(arch.bt_bytes);
  return p;
}

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const auto& MM_CFG = CFG_NORM>
class Matmul {
  using AT = typename A_TYPE::T;
  using BT = typename B_TYPE::T;
  using CT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  static_assert(std::is_same_v<AT, BT>, "Matmul: A and B must have the same element type");
  static_assert(std::is_same_v<AT, half> || std::is_same_v<AT, bfloat16> ||
                    std::is_same_v<AT, float> || std::is_same_v<AT, int8_t>,
                "Matmul: A/B must be half, bfloat16_t, float or int8_t");
  static_assert(std::is_same_v<AT, int8_t>
                    ? std::is_same_v<CT, int32_t>
                    : (std::is_same_v<CT, float> ||
                       (!std::is_same_v<AT, float> &&
                        (std::is_same_v<CT, half> || std::is_same_v<CT, bfloat16>))),
                "Matmul: C must be int32_t for int8 inputs, float for float inputs, and float, "
                "half or bfloat16_t for half/bfloat16_t inputs");
  static_assert(std::is_same_v<AT, int8_t>
                    ? std::is_same_v<BiasT, int32_t>
                    : (std::is_same_v<BiasT, float> ||
                       (!std::is_same_v<AT, float> &&
                        (std::is_same_v<BiasT, half> || std::is_same_v<BiasT, bfloat16>))),
                "Matmul: the bias must be int32_t for int8 inputs, float for float inputs, and "
                "float, half or bfloat16_t for half/bfloat16_t inputs");
  // The bias is always a GM tensor (SetBias); BIAS_TYPE defaults to C_TYPE, so its position is
  // not checked.
  static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM,
                "Matmul: tessera reads A and B from GM");
  static_assert(C_TYPE::pos == TPosition::GM || C_TYPE::pos == TPosition::VECIN ||
                    C_TYPE::pos == TPosition::VECCALC,
                "Matmul: C is written to GM or to a VECIN (UB) tensor");
  static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND &&
                    C_TYPE::format == CubeFormat::ND,
                "Matmul: tessera supports ND operands");

 public:
  // Takes the tiling (copied) and validates it against this core's buffers; fails the block
  // with the broken rule otherwise. REGIST_MATMUL_OBJ calls it.
  void Init(const TCubeTiling* tiling, TPipe* = nullptr) {
    detail::MatmulRequire(tiling != nullptr, "Matmul::Init", "tiling is null");
    tiling_ = *tiling;
    const device::BlockContext* ctx = device::CurrentBlock();
    detail::MatmulRequire(ctx != nullptr, "Matmul::Init", "call it inside a kernel");
    tiling::MatmulPlatform p;
    // The cube core's sizes: on an AIV client they are those of its group's AIC (same profile).
    const auto& arch_limit = [](size_t v, int64_t fallback) {
      return v > 0 ? static_cast<int64_t>(v) : fallback;
    };
    p.l1_bytes = arch_limit(ctx->l1_bytes, p.l1_bytes);
    p.l0a_bytes = arch_limit(ctx->l0a_bytes, p.l0a_bytes);
    p.l0b_bytes = arch_limit(ctx->l0b_bytes, p.l0b_bytes);
    p.l0c_bytes = arch_limit(ctx->l0c_bytes, p.l0c_bytes);
    p.bt_bytes = arch_limit(ctx->bt_bytes, p.bt_bytes);
    // Every K chunk is loaded on its own, so only the C0 alignment of baseK matters here.
    const Status st = tiling::CheckCubeTiling(tiling_, p, sizeof(AT), false, true, sizeof(BiasT));
    detail::MatmulRequire(st.ok(), "Matmul::Init", std::string(st.message()));
    detail::MatmulRequire(
        int64_t{tiling_.baseM} * tiling_.baseN * static_cast<int64_t>(sizeof(CT)) <=
            static_cast<int64_t>(detail::kMatmulCBufferBytes),
        "Matmul::Init", "a C block of baseM*baseN exceeds 128 KB");
    orgM_ = tiling_.M;
    orgN_ = tiling_.N;
    orgKa_ = tiling_.Ka;
    orgKb_ = tiling_.Kb;
    singleM_ = tiling_.singleCoreM;
    singleN_ = tiling_.singleCoreN;
    singleK_ = tiling_.singleCoreK;
    hasBias_ = tiling_.isBias != 0;
    inited_ = true;
    Reset();
  }

  void SetTensorA(const GlobalTensor<AT>& gm, bool isTransposeA = false) {
    a_ = gm.data();
    aTrans_ = isTransposeA;
  }
  void SetTensorB(const GlobalTensor<BT>& gm, bool isTransposeB = false) {
    b_ = gm.data();
    bTrans_ = isTransposeB;
  }
  void SetBias(const GlobalTensor<BiasT>& gm) {
    bias_ = gm.data();
    hasBias_ = true;
  }
  void DisableBias() { hasBias_ = false; }
  void ClearBias() { DisableBias(); }
  void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int = 0) {
    orgM_ = orgM;
    orgN_ = orgN;
    orgKa_ = orgKa;
    orgKb_ = orgKb;
  }
  // This core's block (for tails); -1 keeps the current value.
  void SetSingleShape(int singleM, int singleN, int singleK) {
    if (singleM > 0) singleM_ = singleM;
    if (singleN > 0) singleN_ = singleN;
    if (singleK > 0) singleK_ = singleK;
    Reset();
  }
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
    SetSingleShape(tailM, tailN, tailK);
  }

  // Steps to the next base block; false when the core's block is done (then starts over).
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false) {
    static_assert(sync, "tessera's Matmul runs synchronously: use Iterate<true>()");
    detail::MatmulRequire(!enPartialSum, "Matmul::Iterate", "enPartialSum is not supported");
    CheckReady("Matmul::Iterate");
    const int64_t total = MBlocks() * NBlocks();
    if (cursor_ + 1 >= total) {
      cursor_ = -1;
      return false;
    }
    ++cursor_;
    return true;
  }

  // The current base block to GM: at its place in the core's block (row pitch N), or with
  // enSequentialWrite at gm's start with row pitch baseN.
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<CT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    static_assert(sync, "tessera's Matmul runs synchronously: use GetTensorC<true>()");
    detail::MatmulRequire(enAtomic == 0, "Matmul::GetTensorC", "enAtomic must be 0");
    CheckBlock("Matmul::GetTensorC");
    const int64_t bi = BlockRow(), bj = BlockCol();
    detail::MatmulJob job = Job(bi, bj);
    if (enSequentialWrite) {
      job.dst = gm.data();
      job.dstPitch = tiling_.baseN;
    } else {
      job.dst = gm.data() + bi * tiling_.baseM * orgN_ + bj * tiling_.baseN;
      job.dstPitch = orgN_;
    }
    Run(job);
  }

  // The current base block to a VECIN (UB) tensor as a baseM x baseN tile (MIX clients only).
  template <bool sync = true>
  void GetTensorC(const LocalTensor<CT>& ub, uint8_t enAtomic = 0, bool = false) {
    static_assert(sync, "tessera's Matmul runs synchronously: use GetTensorC<true>()");
    detail::MatmulRequire(enAtomic == 0, "Matmul::GetTensorC", "enAtomic must be 0");
    CheckBlock("Matmul::GetTensorC");
    detail::MatmulRequire(
        link_ != nullptr, "Matmul::GetTensorC",
        "a UB destination needs the MIX client mode (an AIV of a MIX kernel after "
        "REGIST_MATMUL_OBJ); the AIC has no UB");
    const int64_t bi = BlockRow(), bj = BlockCol();
    detail::MatmulJob job = Job(bi, bj);
    auto* cbuf =
        reinterpret_cast<CT*>(detail::MatmulCBuffer(link_->workspace, link_->group, link_->sub));
    job.dst = cbuf;
    job.dstPitch = tiling_.baseN;
    Run(job);
    const int64_t rows = job.rows;
    const uint32_t count = static_cast<uint32_t>(rows * tiling_.baseN);
    GlobalTensor<CT> g;
    g.SetGlobalBuffer(cbuf, count);
    DataCopy(ub, g, count);
  }

  // The whole core block to GM (row pitch N; enSequentialWrite: pitch singleCoreN).
  template <bool sync = true>
  void IterateAll(const GlobalTensor<CT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  bool = false, bool = false) {
    static_assert(sync, "tessera's Matmul runs synchronously: use IterateAll<true>()");
    detail::MatmulRequire(enAtomic == 0, "Matmul::IterateAll", "enAtomic must be 0");
    CheckReady("Matmul::IterateAll");
    detail::MatmulJob job = Job(0, 0);
    job.rows = singleM_;
    job.cols = singleN_;
    job.dst = gm.data();
    job.dstPitch = enSequentialWrite ? singleN_ : orgN_;
    Run(job);
  }

  void End() { Reset(); }

  // The AIV index inside its group (0/1); 0 on the AIC.
  uint8_t GetSubBlockIdx() const { return static_cast<uint8_t>(device::GetSubBlockIdx()); }

  // For REGIST_MATMUL_OBJ.
  void AttachClient(detail::MatmulClientLink* link) { link_ = link; }

 private:
  static void Serve(const detail::MatmulJob& job) { detail::RunMatmulJob<AT, CT, BiasT>(job); }

  void Reset() { cursor_ = -1; }
  int64_t MBlocks() const { return detail::CeilDiv(singleM_, tiling_.baseM); }
  int64_t NBlocks() const { return detail::CeilDiv(singleN_, tiling_.baseN); }
  int64_t BlockRow() const {
    return tiling_.iterateOrder == 0 ? cursor_ % MBlocks() : cursor_ / NBlocks();
  }
  int64_t BlockCol() const {
    return tiling_.iterateOrder == 0 ? cursor_ / MBlocks() : cursor_ % NBlocks();
  }

  void CheckReady(const char* api) const {
    detail::MatmulRequire(inited_, api, "call Init or REGIST_MATMUL_OBJ first");
    detail::MatmulRequire(a_ != nullptr && b_ != nullptr, api,
                          "call SetTensorA and SetTensorB first");
    detail::MatmulRequire(!hasBias_ || bias_ != nullptr, api,
                          "the tiling has isBias = 1: call SetBias, or DisableBias");
    detail::MatmulRequire(
        singleM_ >= 1 && singleN_ >= 1 && singleK_ >= 1 && singleM_ <= orgM_ && singleN_ <= orgN_ &&
            singleK_ <= std::min(orgKa_, orgKb_),
        api,
        "single shape " + std::to_string(singleM_) + " x " + std::to_string(singleN_) + " x " +
            std::to_string(singleK_) + " exceeds the original shape " + std::to_string(orgM_) +
            " x " + std::to_string(orgN_) + " x " + std::to_string(std::min(orgKa_, orgKb_)));
    const int64_t pitch_a = aTrans_ ? orgM_ : orgKa_, pitch_b = bTrans_ ? orgKb_ : orgN_;
    detail::MatmulRequire(pitch_a <= 65535 && pitch_b <= 65535 && orgN_ <= 65535, api,
                          "row pitches above 65535 elements are not supported (A " +
                              std::to_string(pitch_a) + ", B " + std::to_string(pitch_b) + ")");
  }
  void CheckBlock(const char* api) const {
    CheckReady(api);
    detail::MatmulRequire(cursor_ >= 0, api,
                          "call Iterate() first (it returned false or was not called)");
  }

  detail::MatmulJob Job(int64_t bi, int64_t bj) const {
    detail::MatmulJob job;
    job.a = a_;
    job.b = b_;
    job.bias = hasBias_ ? bias_ : nullptr;
    job.orgM = orgM_;
    job.orgN = orgN_;
    job.orgKa = orgKa_;
    job.orgKb = orgKb_;
    job.k = singleK_;
    job.m0 = bi * tiling_.baseM;
    job.n0 = bj * tiling_.baseN;
    job.rows = std::min<int64_t>(tiling_.baseM, singleM_ - job.m0);
    job.cols = std::min<int64_t>(tiling_.baseN, singleN_ - job.n0);
    job.baseM = tiling_.baseM;
    job.baseN = tiling_.baseN;
    job.baseK = tiling_.baseK;
    job.iterateOrder = tiling_.iterateOrder;
    job.aTrans = aTrans_;
    job.bTrans = bTrans_;
    return job;
  }

  // A job's region offsets are relative to the core block; A/B/bias pointers are the core's.
  void Run(detail::MatmulJob job) {
    if (link_ == nullptr) {
      detail::MatmulRequire(
          device::GetCoreType() == device::CoreType::kAic, "Matmul",
          "on a vector core the Matmul needs REGIST_MATMUL_OBJ in a MIX kernel (the "
          "AIC does the cube work)");
      detail::RunMatmulJob<AT, CT, BiasT>(job);
      return;
    }
    detail::MatmulRequest req;
    req.kind = detail::MatmulRequest::Kind::kCompute;
    req.serve = &Serve;
    req.job = job;
    detail::MatmulPost(*link_, req);
  }

  TCubeTiling tiling_{};
  bool inited_ = false;
  const AT* a_ = nullptr;
  const BT* b_ = nullptr;
  const BiasT* bias_ = nullptr;
  bool aTrans_ = false, bTrans_ = false, hasBias_ = false;
  int64_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
  int64_t singleM_ = 0, singleN_ = 0, singleK_ = 0;
  int64_t cursor_ = -1;
  detail::MatmulClientLink* link_ = nullptr;  // the REGIST guard's, in MIX client mode
};

namespace detail {

// What REGIST_MATMUL_OBJ leaves in the kernel's scope: on an AIV of a MIX kernel it links the
// objects to the group's server and, when the kernel returns, tells the server this client quit
// and waits for it to finish.
class MatmulRegistration {
 public:
  MatmulRegistration(void* workspace, bool cube_only) {
    const device::BlockContext* ctx = device::CurrentBlock();
    if (ctx == nullptr) KernelFail("REGIST_MATMUL_OBJ", "call it inside a kernel");
    if (cube_only || ctx->kernel_type != device::KernelType::kMix) return;
    if (workspace == nullptr) {
      KernelFail("REGIST_MATMUL_OBJ",
                 "the workspace is null; a MIX kernel needs MatmulWorkspaceBytes(blockDim) bytes "
                 "of GM for the Matmul server");
    }
    if (ctx->checked) {
      const size_t have = device::DeviceBytesFrom(workspace);
      const uint64_t need = MatmulWorkspaceBytes(ctx->block_num);
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
  void Attach(MM& mm, const TCubeTiling* tiling) {
    if (server_) return;  // the AIC only serves
    mm.Init(tiling);
    if (client_) mm.AttachClient(&link_);
  }
  template <class MM, class... Rest>
  void Attach(MM& mm, const TCubeTiling* tiling, Rest&&... rest) {
    static_assert(sizeof...(Rest) / 2 < 4, "REGIST_MATMUL_OBJ registers at most 4 Matmul objects");
    Attach(mm, tiling);
    Attach(rest...);
  }

 private:
  MatmulClientLink link_;
  void* workspace_ = nullptr;
  bool client_ = false;
  bool server_ = false;
};

}  // namespace detail
}  // namespace tessera::kernel

#ifdef ASCENDC_CUBE_ONLY
#define TESSERA_MATMUL_CUBE_ONLY_ true
#else
#define TESSERA_MATMUL_CUBE_ONLY_ false
#endif

// REGIST_MATMUL_OBJ(&pipe, workspace, mm, &tiling[, mm2, &tiling2, ...]): up to 4 objects. In a
// MIX kernel the AIC serves the AIVs' requests here and then returns from the kernel; call it
// before pipe.InitBuffer, in the kernel's outermost scope (its registration lives until the kernel
// returns).
#define REGIST_MATMUL_OBJ(pipe, workspace, ...)                                      \
  ::tessera::kernel::detail::MatmulRegistration tesseraMatmulRegistration_(          \
      ::tessera::kernel::detail::AsWorkspace(workspace), TESSERA_MATMUL_CUBE_ONLY_); \
  (void)(pipe);                                                                      \
  if (tesseraMatmulRegistration_.server()) {                                         \
    tesseraMatmulRegistration_.Serve();                                              \
    return;                                                                          \
  }                                                                                  \
  tesseraMatmulRegistration_.Attach(__VA_ARGS__)
