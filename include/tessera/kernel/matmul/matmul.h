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
#include "tessera/device/block.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/cube/cube.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/kernel.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/matmul/detail/matmul_engine.h"
#include "tessera/kernel/matmul/detail/matmul_protocol.h"
#include "tessera/kernel/matmul/matmul_config.h"
#include "tessera/kernel/matmul/profile.h"
#include "tessera/kernel/pipe.h"
#include "tessera/tiling/matmul_tiling.h"

namespace tessera::kernel {

using tiling::TCubeTiling;

enum class CubeFormat : uint8_t {
  ND = 0,
  NZ,
  ZN,
  ZZ,
  NN,
  ND_ALIGN,
  SCALAR,
  VECTOR,
  ROW_MAJOR = ND,
  COLUMN_MAJOR = 8,
};
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

// The running launch's system workspace (Ascend C's GetSysWorkSpacePtr): MatmulWorkspaceBytes
// (blockDim) bytes of GM for the Matmul server, shared by the launch's blocks, so a MIX kernel can
// pass it to REGIST_MATMUL_OBJ without a workspace argument. It lives while a block of the launch
// that asked for it is inside its REGIST_MATMUL_OBJ scope.
uint8_t* GetSysWorkSpacePtr();

// GM bytes REGIST_MATMUL_OBJ needs in a MIX launch of `block_dim` groups (host or kernel).
constexpr uint64_t MatmulWorkspaceBytes(uint32_t block_dim) {
  return uint64_t{block_dim} * detail::kMatmulGroupBytes;
}

// The buffer sizes of a profile's AI core, for the host tiling classes (host side).
// (A template so this header does not need device/arch_spec.h, which is C++20.)
template <class ArchSpec>
tiling::MatmulPlatform MatmulPlatformOf(const ArchSpec& arch) {
  tiling::MatmulPlatform p;
  p.l1_bytes = static_cast<int64_t>(arch.l1_bytes);
  p.l0a_bytes = static_cast<int64_t>(arch.l0a_bytes);
  p.l0b_bytes = static_cast<int64_t>(arch.l0b_bytes);
  p.l0c_bytes = static_cast<int64_t>(arch.l0c_bytes);
  p.ub_bytes = static_cast<int64_t>(arch.ub_bytes);
  p.bt_bytes = static_cast<int64_t>(arch.bt_bytes);
  return p;
}

// The user callbacks of Ascend C's Matmul (custom C copy-out, custom A/B copy-in to L1), the
// sixth template argument. tessera's Matmul takes only the form without callbacks.
template <
    void (*DataCopyOut)(const void* gm, const LocalTensor<int8_t>& co1Local,
                        const void* dataCopyOutParams, const uint64_t tilingPtr,
                        const uint64_t dataPtr) = nullptr,
    void (*CopyA1)(const LocalTensor<int8_t>& aMatrix, const void* gm, int row, int col, int useM,
                   int useK, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
    void (*CopyB1)(const LocalTensor<int8_t>& bMatrix, const void* gm, int row, int col, int useK,
                   int useN, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr>
struct MatmulCallBackFunc {
  static constexpr auto DataCopyOutPtr = DataCopyOut;
  static constexpr auto CopyA1Ptr = CopyA1;
  static constexpr auto CopyB1Ptr = CopyB1;
};

// Matmul policies (the seventh template argument) pick how the NPU schedules the data movement.
// tessera's result is the same for these two; policies that change what is computed (the
// triangular ones) are not provided.
namespace matmul_policy {
template <const auto& MM_CFG, class... Types>
struct MatmulPolicy {};
// Ascend C's N-buffer 3x3 reuse of L1 tiles: a schedule only.
template <const auto& MM_CFG, class... Types>
struct NBuffer33MatmulPolicy {};
}  // namespace matmul_policy

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE,
          const auto& MM_CFG = CFG_NORM, class MM_CB = MatmulCallBackFunc<>,
          template <const auto&, class...> class MATMUL_POLICY = matmul_policy::MatmulPolicy>
class Matmul {
  static_assert(MM_CB::DataCopyOutPtr == nullptr && MM_CB::CopyA1Ptr == nullptr &&
                    MM_CB::CopyB1Ptr == nullptr,
                "Matmul: tessera does not run MatmulCallBackFunc callbacks; use "
                "MatmulCallBackFunc<nullptr, nullptr, nullptr>");
  static_assert(
      std::is_same_v<MATMUL_POLICY<MM_CFG>, matmul_policy::MatmulPolicy<MM_CFG>> ||
          std::is_same_v<MATMUL_POLICY<MM_CFG>, matmul_policy::NBuffer33MatmulPolicy<MM_CFG>>,
      "Matmul: tessera runs the default policy and NBuffer33MatmulPolicy only");
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
  static_assert((A_TYPE::format == CubeFormat::ND || A_TYPE::format == CubeFormat::VECTOR) &&
                    B_TYPE::format == CubeFormat::ND &&
                    (C_TYPE::format == CubeFormat::ND ||
                     (C_TYPE::format == CubeFormat::ND_ALIGN && C_TYPE::pos == TPosition::GM)),
                "Matmul: tessera supports ND operands, a VECTOR A (M = 1) and an ND_ALIGN C in GM");
  // ND_ALIGN: C rows are padded to 32 bytes; a block writes its padded width, zeros past N.
  static constexpr bool kAlignC = C_TYPE::format == CubeFormat::ND_ALIGN;
  static constexpr int64_t kCAlign = 32 / static_cast<int64_t>(sizeof(CT));

 public:
  // Takes the tiling (copied) and validates it against this core's buffers; fails the block
  // with the broken rule otherwise. REGIST_MATMUL_OBJ calls it.
  void Init(const TCubeTiling* tiling, TPipe* = nullptr) {
    detail::MatmulRequire(tiling != nullptr, "Matmul::Init", "tiling is null");
    tiling_ = *tiling;
    const device::BlockContext* ctx = device::CurrentBlock();
    detail::MatmulRequire(ctx != nullptr, "Matmul::Init", "call it inside a kernel");
    tiling::MatmulPlatform p;
    // The cube core's sizes: on an AIV client (no cube arenas) those of its group's AIC, i.e. of
    // the active profile.
    const ::tessera::kernel::AiCoreProfile prof = ::tessera::kernel::CurrentProfile();
    const auto& arch_limit = [](size_t v, uint64_t profile) {
      return static_cast<int64_t>(v > 0 ? v : profile);
    };
    p.l1_bytes = arch_limit(ctx->l1_bytes, prof.l1_bytes);
    p.l0a_bytes = arch_limit(ctx->l0a_bytes, prof.l0a_bytes);
    p.l0b_bytes = arch_limit(ctx->l0b_bytes, prof.l0b_bytes);
    p.l0c_bytes = arch_limit(ctx->l0c_bytes, prof.l0c_bytes);
    p.bt_bytes = arch_limit(ctx->bt_bytes, prof.bt_bytes);
    // Every K chunk is loaded on its own, so only the C0 alignment of baseK matters here.
    // BatchNum bounds IterateBatch's batch counts (RunBatches); the base-block rules apply per
    // product.
    TCubeTiling single = tiling_;
    single.BatchNum = std::min(single.BatchNum, 1);
    const Status st = tiling::CheckCubeTiling(single, p, sizeof(AT), false, true, sizeof(BiasT));
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

  // A constant tiling (MM_CFG is a MatmulApiStaticTiling) registered with a null tiling: runs on
  // its fixed fields; the original shape is the single-core shape until SetOrgShape. Does
  // nothing for other configurations (the kernel calls Init itself).
  void InitFromConfig() {
    if constexpr (std::is_same_v<std::decay_t<decltype(MM_CFG)>, MatmulApiStaticTiling>) {
      const MatmulApiStaticTiling& s = MM_CFG;
      TCubeTiling t;
      t.usedCoreNum = 1;
      t.M = s.M > 0 ? s.M : s.singleCoreM;
      t.N = s.N > 0 ? s.N : s.singleCoreN;
      t.Ka = s.Ka > 0 ? s.Ka : s.singleCoreK;
      t.Kb = s.Kb > 0 ? s.Kb : s.singleCoreK;
      t.singleCoreM = s.singleCoreM;
      t.singleCoreN = s.singleCoreN;
      t.singleCoreK = s.singleCoreK;
      t.baseM = s.baseM;
      t.baseN = s.baseN;
      t.baseK = s.baseK;
      t.depthA1 = s.depthA1;
      t.depthB1 = s.depthB1;
      t.stepM = s.stepM;
      t.stepN = s.stepN;
      t.stepKa = s.stepKa;
      t.stepKb = s.stepKb;
      t.isBias = 0;
      t.iterateOrder = s.iterateOrder > 0 ? s.iterateOrder : 0;
      t.dbL0A = s.dbL0A > 0 ? s.dbL0A : 1;
      t.dbL0B = s.dbL0B > 0 ? s.dbL0B : 1;
      t.dbL0C = s.dbL0C > 0 ? s.dbL0C : 1;
      Init(&t);
    }
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
  // Iterate<false>() is the vendor's asynchronous form: it starts the walk, and each
  // GetTensorC<false>() then delivers the next base block in order (tessera computes a block when
  // it is fetched, so no result waits in a workspace).
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false) {
    detail::MatmulRequire(!enPartialSum, "Matmul::Iterate", "enPartialSum is not supported");
    CheckReady("Matmul::Iterate");
    const int64_t total = MBlocks() * NBlocks();
    if constexpr (!sync) {
      cursor_ = 0;
      asyncWalk_ = true;
      return true;
    }
    if (cursor_ + 1 >= total) {
      cursor_ = -1;
      return false;
    }
    ++cursor_;
    return true;
  }

  // The current base block to GM: at its place in the core's block (row pitch N), or with
  // enSequentialWrite at gm's start with row pitch baseN. GetTensorC<false> (after Iterate<false>)
  // writes the walk's next block.
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<CT>& gm, uint8_t enAtomic = 0,
                  bool enSequentialWrite = false) {
    detail::MatmulRequire(enAtomic == 0, "Matmul::GetTensorC", "enAtomic must be 0");
    CheckBlock<sync>("Matmul::GetTensorC");
    const int64_t bi = BlockRow(), bj = BlockCol();
    detail::MatmulJob job = Job(bi, bj);
    if (enSequentialWrite) {
      job.dst = gm.data();
      job.dstPitch = tiling_.baseN;
    } else {
      job.dst = gm.data() + bi * tiling_.baseM * PitchC() + bj * tiling_.baseN;
      job.dstPitch = PitchC();
    }
    Run(job);
    PadC(job);
    if constexpr (!sync) Advance();
  }

  // The current base block to a VECIN (UB) tensor as a baseM x baseN tile (MIX clients only).
  template <bool sync = true>
  void GetTensorC(const LocalTensor<CT>& ub, uint8_t enAtomic = 0, bool = false) {
    detail::MatmulRequire(enAtomic == 0, "Matmul::GetTensorC", "enAtomic must be 0");
    CheckBlock<sync>("Matmul::GetTensorC");
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
    if constexpr (!sync) Advance();
  }

  // The whole core block to GM (row pitch N; enSequentialWrite: pitch singleCoreN).
  // IterateAll<false> is the asynchronous form: WaitIterateAll() completes it (tessera has written
  // C by then already).
  template <bool sync = true>
  void IterateAll(const GlobalTensor<CT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  bool = false, bool = false) {
    detail::MatmulRequire(enAtomic == 0, "Matmul::IterateAll", "enAtomic must be 0");
    CheckReady("Matmul::IterateAll");
    detail::MatmulJob job = Job(0, 0);
    job.rows = singleM_;
    job.cols = singleN_;
    job.dst = gm.data();
    job.dstPitch = enSequentialWrite ? singleN_ : PitchC();
    Run(job);
    PadC(job);
    pendingAll_ = !sync;
  }
  // Waits for the IterateAll<false> before it.
  void WaitIterateAll() {
    detail::MatmulRequire(pendingAll_, "Matmul::WaitIterateAll",
                          "no IterateAll<false>() is pending");
    pendingAll_ = false;
  }

  // Batched matmuls. One call computes max(batchA, batchB) products of singleCoreM x singleCoreN
  // (K = singleCoreK) from the tensors of SetTensorA/B, in the layouts of the MatmulTypes with the
  // tiling's *LayoutInfo* axes (host: SetALayout/SetBLayout/SetCLayout or SetBatchInfoForNormal):
  //  - BSNGD (B, S, N, G, D) and SBNGD (S, B, N, G, D): matrix i (over B, N, G) is S x D with row
  //    pitch N*G*D (SBNGD: B*N*G*D); C likewise (B, S1, N, G, S2), an S1 x S2 matrix each;
  //  - BNGS1S2 and NORMAL: matrices stored one after another (NORMAL: singleCoreM x singleCoreK,
  //    or matrixStrideA/B elements apart when given).
  // The smaller of batchA/batchB is broadcast: product c reads A c / (batchC / batchA) and B
  // c / (batchC / batchB). batchC must not exceed the tiling's BatchNum (host: SetBatchNum or
  // SetBatchInfoForNormal). The bias adds singleCoreN values per product (product c's at
  // c * singleCoreN, as the vendor packs them), or the same ones to every product when MM_CFG's
  // isBiasBatch is false. Transposed operands keep their layout, the S x D matrix then holding
  // A^T (or B^T).
  template <bool sync = true, bool waitIterateBatch = false>
  void IterateBatch(const GlobalTensor<CT>& gm, uint32_t batchA, uint32_t batchB,
                    bool enSequentialWrite, const uint32_t matrixStrideA = 0,
                    const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0,
                    const bool enPartialSum = false, const uint8_t enAtomic = 0) {
    static_cast<void>(matrixStrideC);  // reserved by the vendor
    detail::MatmulRequire(!enPartialSum && enAtomic == 0, "Matmul::IterateBatch",
                          "enPartialSum and enAtomic are not supported");
    detail::MatmulRequire(!enSequentialWrite, "Matmul::IterateBatch",
                          "enSequentialWrite must be false for a GM C");
    RunBatches(gm.data(), 0, batchA, batchB, matrixStrideA, matrixStrideB);
    pendingBatch_ = !sync && waitIterateBatch;
  }
  // The batch counts of the IterateBatch/IterateNBatch calls that do not pass them (pure cube).
  void SetBatchNum(int32_t batchA, int32_t batchB) {
    batchA_ = batchA;
    batchB_ = batchB;
  }
  // batchLoop IterateBatch rounds into the workspace of SetWorkspace (C's layout): round l
  // computes products l*batchC .. (l+1)*batchC - 1 from A matrices l*batchA.. and B matrices
  // l*batchB... IterateNBatch<false> computes the same; GetBatchTensorC<false> then hands out
  // each round's C in the workspace in order: a tensor from the round's first C element to its
  // last (for BSNGD/SBNGD C the round's matrices lie interleaved with the C layout's row pitch).
  template <bool sync = true, bool waitIterateBatch = false>
  void IterateNBatch(const uint32_t batchLoop, uint32_t batchA, uint32_t batchB,
                     bool enSequentialWrite, const uint32_t matrixStrideA = 0,
                     const uint32_t matrixStrideB = 0, const uint32_t matrixStrideC = 0) {
    static_cast<void>(matrixStrideC);
    detail::MatmulRequire(workspace_ != nullptr, "Matmul::IterateNBatch",
                          "call SetWorkspace with the GM for C first");
    detail::MatmulRequire(!enSequentialWrite, "Matmul::IterateNBatch",
                          "enSequentialWrite must be false");
    for (uint32_t l = 0; l < batchLoop; ++l)
      RunBatches(static_cast<CT*>(workspace_), l, batchA, batchB, matrixStrideA, matrixStrideB);
    nBatchRounds_ = batchLoop;
    nBatchNext_ = 0;
    lastBatchC_ = std::max(batchA, batchB);
    pendingBatch_ = !sync && waitIterateBatch;
  }
  // The next round of the IterateNBatch before it, in the workspace (already computed).
  template <bool sync = true>
  GlobalTensor<CT> GetBatchTensorC(uint32_t batchA, uint32_t batchB, bool = false) {
    detail::MatmulRequire(nBatchNext_ < nBatchRounds_, "Matmul::GetBatchTensorC",
                          "no IterateNBatch round is left to fetch");
    detail::MatmulRequire(std::max(batchA, batchB) == lastBatchC_, "Matmul::GetBatchTensorC",
                          "the batch counts differ from IterateNBatch's");
    int64_t first = INT64_MAX, end = 0;
    for (uint32_t i = 0; i < lastBatchC_; ++i) {
      int64_t offset = 0, pitch = 0;
      PlaceC(static_cast<int64_t>(nBatchNext_) * lastBatchC_ + i, &offset, &pitch);
      first = std::min(first, offset);
      end = std::max(end, offset + (singleM_ - 1) * pitch + singleN_);
    }
    ++nBatchNext_;
    GlobalTensor<CT> g;
    g.SetGlobalBuffer(static_cast<CT*>(workspace_) + first, static_cast<uint64_t>(end - first));
    return g;
  }
  // Waits for the IterateBatch<false, true> / IterateNBatch<false, true> before it.
  void WaitIterateBatch() {
    detail::MatmulRequire(pendingBatch_, "Matmul::WaitIterateBatch",
                          "no IterateBatch<false, true>() is pending");
    pendingBatch_ = false;
  }

  // GM the vendor's asynchronous forms park results in. tessera computes a block when it is
  // fetched, so Iterate/IterateAll keep no results there; IterateNBatch writes its rounds there.
  template <class T>
  void SetWorkspace(const GlobalTensor<T>& gm) {
    workspace_ = gm.data();
  }
  template <class T>
  void SetWorkspace(T* addr, int) {
    workspace_ = addr;
  }

  void End() {
    Reset();
    asyncWalk_ = false;
    pendingAll_ = false;
  }

  // The AIV index inside its group (0/1); 0 on the AIC.
  uint8_t GetSubBlockIdx() const { return static_cast<uint8_t>(device::GetSubBlockIdx()); }

  // For REGIST_MATMUL_OBJ.
  void AttachClient(detail::MatmulClientLink* link) { link_ = link; }

 private:
  static void Serve(const detail::MatmulJob& job) { detail::RunMatmulJob<AT, CT, BiasT>(job); }

  void Reset() { cursor_ = -1; }
  // C's row pitch in GM: N, or N rounded up to 32 bytes for ND_ALIGN.
  int64_t PitchC() const { return kAlignC ? detail::CeilDiv(orgN_, kCAlign) * kCAlign : orgN_; }
  // ND_ALIGN: the columns from a block's last one to its 32-byte boundary are zero, as the
  // NPU's copy-out writes them (the padded columns of B are zero in L1).
  void PadC(const detail::MatmulJob& job) const {
    if constexpr (kAlignC) {
      const int64_t padded =
          std::min<int64_t>(detail::CeilDiv(job.cols, kCAlign) * kCAlign, job.dstPitch);
      auto* dst = static_cast<CT*>(job.dst);
      for (int64_t r = 0; r < job.rows; ++r)
        for (int64_t c = job.cols; c < padded; ++c)
          dst[r * job.dstPitch + c] = CT{};
    }
  }
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
  template <bool sync>
  void CheckBlock(const char* api) const {
    CheckReady(api);
    if constexpr (sync) {
      detail::MatmulRequire(cursor_ >= 0, api,
                            "call Iterate() first (it returned false or was not called)");
    } else {
      detail::MatmulRequire(asyncWalk_ && cursor_ >= 0, api,
                            "call Iterate<false>() first, and fetch at most one block per base "
                            "block of the core");
    }
  }
  // The asynchronous walk's next block; the walk ends after the last one.
  void Advance() {
    if (cursor_ + 1 >= MBlocks() * NBlocks()) {
      cursor_ = -1;
      asyncWalk_ = false;
    } else {
      ++cursor_;
    }
  }

  // Where matrix `idx` of an operand in `layout` starts, and its row pitch. axes: B, S, N, G, D
  // from the tiling; `normal`: the matrix size of the NORMAL layout; `cols`: its row pitch there.
  static void PlaceMatrix(LayoutMode layout, const int32_t (&axes)[5], int64_t idx, int64_t normal,
                          int64_t cols, int64_t* offset, int64_t* pitch) {
    const int64_t b = axes[0], s = axes[1], n = axes[2], g = axes[3], d = axes[4];
    if (layout == LayoutMode::BSNGD) {
      *offset = (idx / (n * g)) * s * n * g * d + (idx % (n * g)) * d;
      *pitch = n * g * d;
    } else if (layout == LayoutMode::SBNGD) {
      *offset = idx * d;
      *pitch = b * n * g * d;
    } else if (layout == LayoutMode::BNGS1S2) {
      *offset = idx * s * d;
      *pitch = d;
    } else {
      *offset = idx * normal;
      *pitch = cols;
    }
  }
  bool LayoutAxesValid(LayoutMode layout, const int32_t (&axes)[5]) const {
    if (layout == LayoutMode::NONE || layout == LayoutMode::NORMAL) return true;
    for (int32_t v : axes)
      if (v <= 0) return false;
    return true;
  }
  void PlaceC(int64_t idx, int64_t* offset, int64_t* pitch) const {
    const int32_t axes[5] = {tiling_.CLayoutInfoB, tiling_.CLayoutInfoS1, tiling_.CLayoutInfoN,
                             tiling_.CLayoutInfoG, tiling_.CLayoutInfoS2};
    PlaceMatrix(C_TYPE::layout, axes, idx, singleM_ * singleN_, singleN_, offset, pitch);
  }
  static constexpr bool BiasPerBatch() {
    if constexpr (std::is_same_v<std::decay_t<decltype(MM_CFG)>, MatmulConfig>) {
      return MM_CFG.isBiasBatch;
    } else {
      return MM_CFG.cfg.isBiasBatch;
    }
  }
  // Round `round` of batchC = max(batchA, batchB) products into `c` (C's layout).
  void RunBatches(CT* c, uint32_t round, uint32_t batchA, uint32_t batchB, uint32_t strideA,
                  uint32_t strideB) {
    const char* api = "Matmul::IterateBatch";
    CheckReady(api);
    if (batchA == 0) batchA = static_cast<uint32_t>(std::max(batchA_, 0));
    if (batchB == 0) batchB = static_cast<uint32_t>(std::max(batchB_, 0));
    detail::MatmulRequire(
        batchA > 0 && batchB > 0 && (batchA % batchB == 0 || batchB % batchA == 0), api,
        "batchA " + std::to_string(batchA) + " and batchB " + std::to_string(batchB) +
            " must be >= 1 and divide one another");
    const int32_t axesA[5] = {tiling_.ALayoutInfoB, tiling_.ALayoutInfoS, tiling_.ALayoutInfoN,
                              tiling_.ALayoutInfoG, tiling_.ALayoutInfoD};
    const int32_t axesB[5] = {tiling_.BLayoutInfoB, tiling_.BLayoutInfoS, tiling_.BLayoutInfoN,
                              tiling_.BLayoutInfoG, tiling_.BLayoutInfoD};
    const int32_t axesC[5] = {tiling_.CLayoutInfoB, tiling_.CLayoutInfoS1, tiling_.CLayoutInfoN,
                              tiling_.CLayoutInfoG, tiling_.CLayoutInfoS2};
    detail::MatmulRequire(LayoutAxesValid(A_TYPE::layout, axesA) &&
                              LayoutAxesValid(B_TYPE::layout, axesB) &&
                              LayoutAxesValid(C_TYPE::layout, axesC),
                          api,
                          "the tiling has no layout axes for a BSNGD/SBNGD/BNGS1S2 operand (host: "
                          "SetALayout, SetBLayout, SetCLayout)");
    const uint32_t batchC = std::max(batchA, batchB);
    detail::MatmulRequire(
        tiling_.BatchNum >= 1 && batchC <= static_cast<uint32_t>(tiling_.BatchNum), api,
        "max(batchA, batchB) = " + std::to_string(batchC) + " exceeds the tiling's BatchNum " +
            std::to_string(tiling_.BatchNum) + " (host: SetBatchNum or SetBatchInfoForNormal)");
    const int64_t normalA = strideA > 0 ? strideA : singleM_ * singleK_;
    const int64_t normalB = strideB > 0 ? strideB : singleK_ * singleN_;
    const AT* a0 = a_;
    const BT* b0 = b_;
    const BiasT* bias0 = bias_;
    for (uint32_t i = 0; i < batchC; ++i) {
      const int64_t ia = int64_t{round} * batchA + i / (batchC / batchA);
      const int64_t ib = int64_t{round} * batchB + i / (batchC / batchB);
      const int64_t ic = int64_t{round} * batchC + i;
      int64_t offA = 0, pitchA = 0, offB = 0, pitchB = 0, offC = 0, pitchC = 0;
      PlaceMatrix(A_TYPE::layout, axesA, ia, normalA, aTrans_ ? singleM_ : singleK_, &offA,
                  &pitchA);
      PlaceMatrix(B_TYPE::layout, axesB, ib, normalB, bTrans_ ? singleK_ : singleN_, &offB,
                  &pitchB);
      PlaceC(ic, &offC, &pitchC);
      detail::MatmulJob job = Job(0, 0);
      job.a = a0 + offA;
      job.b = b0 + offB;
      if (job.bias != nullptr && BiasPerBatch()) job.bias = bias0 + ic * singleN_;
      // The engine reads A with pitch orgKa (A^T: orgM) and B with pitch orgN (B^T: orgKb).
      job.orgKa = job.orgM = pitchA;
      job.orgN = job.orgKb = pitchB;
      job.rows = singleM_;
      job.cols = singleN_;
      job.dst = c + offC;
      job.dstPitch = pitchC;
      Run(job);
    }
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
  bool asyncWalk_ = false;   // Iterate<false>() started a walk GetTensorC<false>() follows
  bool pendingAll_ = false;  // an IterateAll<false>() not yet waited for
  detail::MatmulClientLink* link_ = nullptr;  // the REGIST guard's, in MIX client mode
  int32_t batchA_ = 0, batchB_ = 0;           // SetBatchNum
  void* workspace_ = nullptr;                 // SetWorkspace (IterateNBatch's C)
  uint32_t nBatchRounds_ = 0, nBatchNext_ = 0, lastBatchC_ = 0;  // GetBatchTensorC's walk
  bool pendingBatch_ = false;  // an IterateBatch<false, true>() not yet waited for
};

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
