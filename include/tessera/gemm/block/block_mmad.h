// Block layer: BlockMmad computes one C block (m x n, the whole K) on an AIC - the K main loop over
// L1 and L0 tiles with ping-pong buffers - and drains L0C to GM through Fixpipe.
//
//   BlockMmad<MmadPingpong<2>, GemmShape<128, 256, 256>, GemmShape<128, 256, 64>,
//             GemmType<half, layout::RowMajor>, GemmType<half, layout::RowMajor>,
//             GemmType<half>> mmad(pipe);
//   mmad(gmA, lda, gmB, ldb, gmC, ldc, GemmCoord{m, n, k}, block_index);
//
// L1TileShape_ is the block (M x N) and the K step of GM -> L1 copies; L0TileShape_ has the same
// M and N and the K step of L1 -> L0 loads. The constructor takes its buffers from `pipe` (L1:
// Stages x (A + B), L0A/L0B: Stages each, L0C: one block) and pre-sets the events that mark every
// slot free; each use waits on its slot's event and sets it again when done; the destructor waits
// them all (CATLASS's protocol, which checked mode accepts). Each L1 slot remembers which source
// tile it holds, and a copy of the same tile into it is skipped: when the whole K fits the stages,
// consecutive blocks sharing an A band or a B panel copy it once; with a longer K, blocks of odd
// index walk K backwards, so of two consecutive blocks sharing a band or panel the second skips the
// copies of the K tiles still in the slots and finds the next ones in the CPU's caches. The
// direction follows the block's index, not its place on a core, so results do not depend on the
// core count. So A and B must not change in GM while the object lives (true inside one kernel
// launch, where they are inputs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessera/core/status.h"
#include "tessera/device/arch_spec.h"
#include "tessera/gemm/gemm_coord.h"
#include "tessera/gemm/policy.h"
#include "tessera/gemm/tile/tile_copy.h"
#include "tessera/kernel/kernel.h"

namespace tessera::gemm::block {

template <class DispatchPolicy_, class L1TileShape_, class L0TileShape_, class AType_, class BType_,
          class CType_>
class BlockMmad {
  static_assert(sizeof(DispatchPolicy_) == 0,
                "BlockMmad: no implementation for this dispatch policy; use MmadPingpong<Stages>");
};

template <uint32_t Stages_, uint32_t L0Stages_, class L1TileShape_, class L0TileShape_,
          class AType_, class BType_, class CType_>
class BlockMmad<MmadPingpong<Stages_, L0Stages_>, L1TileShape_, L0TileShape_, AType_, BType_,
                CType_> {
 public:
  using DispatchPolicy = MmadPingpong<Stages_, L0Stages_>;
  using L1TileShape = L1TileShape_;
  using L0TileShape = L0TileShape_;
  using AType = AType_;
  using BType = BType_;
  using CType = CType_;
  using ElementA = typename AType::Element;
  using ElementB = typename BType::Element;
  using ElementC = typename CType::Element;
  using ElementAccumulator = AccumulatorOf<ElementA>;

  static constexpr uint32_t kStages = Stages_;
  static constexpr uint32_t kL0Stages = L0Stages_;
  static constexpr bool kColumnMajorA = AType::Layout::kColumnMajor;
  static constexpr bool kRowMajorB = !BType::Layout::kColumnMajor;
  using FormA = tile::L1Form<ElementA, kColumnMajorA>;
  using FormB = tile::L1Form<ElementB, kRowMajorB>;
  using CopyA = tile::CopyGmToL1<ElementA, kColumnMajorA>;
  using CopyB = tile::CopyGmToL1<ElementB, kRowMajorB>;
  using LoadA = tile::CopyL1ToL0A<ElementA, kColumnMajorA>;
  using LoadB = tile::CopyL1ToL0B<ElementB, kRowMajorB>;
  using Mma = tile::TileMmad<ElementA>;
  using CopyC = tile::CopyL0CToGm<ElementC, ElementAccumulator>;

  static constexpr uint32_t kL1M = L1TileShape::M;
  static constexpr uint32_t kL1N = L1TileShape::N;
  static constexpr uint32_t kL1K = L1TileShape::K;
  static constexpr uint32_t kL0K = L0TileShape::K;

  static_assert(std::is_same_v<ElementA, ElementB>, "BlockMmad: A and B must have the same type");
  static_assert(kIsCubeInput<ElementA>, "BlockMmad: A/B must be float, half, bfloat16 or int8_t");
  static_assert(L0TileShape::M == kL1M && L0TileShape::N == kL1N,
                "BlockMmad: the L0 tile must have the L1 tile's M and N (ping-pong splits K only)");
  static_assert(kL1M % 32 == 0 && kL1N % 32 == 0 && kL0K % 32 == 0 && kL1K % kL0K == 0,
                "BlockMmad: M, N and the K steps must be multiples of 32, and L1 K a multiple of "
                "L0 K");
  static_assert(kL1M <= 4095 && kL1N <= 4095 && kL0K <= 4095,
                "BlockMmad: Mmad takes m, n, k up to 4095");

  // Bytes of each buffer. (A transposing load of an odd tail writes one fractal past the valid
  // region; that happens only below the full tile, so the full-size buffers have room for it.)
  static constexpr uint32_t kL1ABytes =
      (kColumnMajorA ? FormA::Elements(kL1K, kL1M) : FormA::Elements(kL1M, kL1K)) *
      sizeof(ElementA);
  static constexpr uint32_t kL1BBytes =
      (kRowMajorB ? FormB::Elements(kL1K, kL1N) : FormB::Elements(kL1N, kL1K)) * sizeof(ElementB);
  static constexpr uint32_t kL0ABytes = RoundUp(kL1M, 32) * kL0K * sizeof(ElementA);
  static constexpr uint32_t kL0BBytes = kL0K * RoundUp(kL1N, 32) * sizeof(ElementB);
  static constexpr uint32_t kL0CBytes = kL1M * kL1N * sizeof(ElementAccumulator);

  // The buffers must fit some profile's memories (the largest tessera has: native's L1 2 MB,
  // L0A/L0B 256 KB, L0C 512 KB); can_implement checks the profile a launch runs on.
  static_assert(kStages * (kL1ABytes + kL1BBytes) <= 2048 * 1024 - 256,
                "BlockMmad: Stages x (L1 A tile + L1 B tile) exceeds every profile's L1");
  static_assert(kL0Stages * kL0ABytes <= 256 * 1024,
                "BlockMmad: L0Stages x L0A tile exceeds 256 KB");
  static_assert(kL0Stages * kL0BBytes <= 256 * 1024,
                "BlockMmad: L0Stages x L0B tile exceeds 256 KB");
  static_assert(kL0CBytes <= 512 * 1024, "BlockMmad: the L0C tile exceeds 512 KB");

  // Host: OK when the buffers fit the on-chip memories of `arch`; else which one does not.
  static Status can_implement(const device::ArchSpec& arch) {
    const auto check = [&](uint64_t need, uint64_t have, const char* what) -> Status {
      if (need <= have) return OkStatus();
      return OutOfRange("BlockMmad: " + std::string(what) + " needs " + std::to_string(need) +
                        " bytes; profile " + arch.name + " has " + std::to_string(have));
    };
    TESSERA_RETURN_IF_ERROR(
        check(uint64_t{kStages} * (kL1ABytes + kL1BBytes), arch.l1_bytes, "L1"));
    TESSERA_RETURN_IF_ERROR(check(uint64_t{kL0Stages} * kL0ABytes, arch.l0a_bytes, "L0A"));
    TESSERA_RETURN_IF_ERROR(check(uint64_t{kL0Stages} * kL0BBytes, arch.l0b_bytes, "L0B"));
    return check(kL0CBytes, arch.l0c_bytes, "L0C");
  }

  explicit BlockMmad(::tessera::kernel::TPipe& pipe) {
    for (uint32_t s = 0; s < kStages; ++s) {
      pipe.InitBuffer(l1a_buf_[s], kL1ABytes);
      pipe.InitBuffer(l1b_buf_[s], kL1BBytes);
      l1a_[s] = l1a_buf_[s].template Get<ElementA>();
      l1b_[s] = l1b_buf_[s].template Get<ElementB>();
      ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::MTE1_MTE2>(static_cast<int32_t>(s));
    }
    for (uint32_t s = 0; s < kL0Stages; ++s) {
      pipe.InitBuffer(l0a_buf_[s], kL0ABytes);
      pipe.InitBuffer(l0b_buf_[s], kL0BBytes);
      l0a_[s] = l0a_buf_[s].template Get<ElementA>();
      l0b_[s] = l0b_buf_[s].template Get<ElementB>();
      ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::M_MTE1>(static_cast<int32_t>(s));
    }
    pipe.InitBuffer(l0c_buf_, kL0CBytes);
    l0c_ = l0c_buf_.template Get<ElementAccumulator>();
    ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::FIX_M>(0);
  }
  BlockMmad(const BlockMmad&) = delete;
  BlockMmad& operator=(const BlockMmad&) = delete;
  ~BlockMmad() {
    for (uint32_t s = 0; s < kStages; ++s)
      ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::MTE1_MTE2>(static_cast<int32_t>(s));
    for (uint32_t s = 0; s < kL0Stages; ++s)
      ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::M_MTE1>(static_cast<int32_t>(s));
    ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::FIX_M>(0);
  }

  // C[m x n] = A[m x k] * B[k x n] for one block (shape.m <= L1 M, shape.n <= L1 N, shape.k >= 1;
  // a column-major A gives m == 1 only with lda == 1 - kernel::BlockTileFor keeps it so),
  // written to `c` (row pitch ldc) as ElementC. `a` is the block's first element of A (row-major:
  // A[m0][0], pitch lda; column-major: A^T[0][m0]); `b` likewise (row-major: B[0][n0];
  // column-major: B^T[n0][0]). `block_index` is the block's index in the launch: it sets the
  // direction of the K walk (odd: backwards) when K exceeds the L1 stages.
  void operator()(const ::tessera::kernel::GlobalTensor<ElementA>& a, uint64_t lda,
                  const ::tessera::kernel::GlobalTensor<ElementB>& b, uint64_t ldb,
                  const ::tessera::kernel::GlobalTensor<ElementC>& c, uint64_t ldc,
                  const GemmCoord& shape, uint64_t block_index) {
    const uint32_t k_tiles = CeilDiv(shape.k, kL1K);
    // When the whole K fits the stages, K tile kt always goes to slot kt, so a block that shares
    // its A band or B panel with the previous one finds those tiles in place (LoadL1 skips them).
    // Otherwise consecutive blocks (of opposite index parity) walk K in opposite directions: a
    // block sharing the previous one's A band or B panel starts with the K tiles that one copied
    // last, still in its slots (the last one in the slot before l1_slot_; LoadL1 skips them) and
    // then in the CPU's caches. The order of the K sum depends on the block's index only.
    const bool reverse = k_tiles > kStages && (block_index & 1) != 0;
    uint32_t slot = k_tiles <= kStages ? 0 : (l1_slot_ + kStages - 1) % kStages;
    const auto tile_at = [&](uint32_t step) { return reverse ? k_tiles - 1 - step : step; };
    LoadL1(slot, a, lda, b, ldb, shape, tile_at(0));
    ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::FIX_M>(0);
    for (uint32_t step = 0; step < k_tiles; ++step) {
      const uint32_t kt = tile_at(step);
      const uint32_t next = (slot + 1) % kStages;
      if (kStages > 1 && step + 1 < k_tiles) LoadL1(next, a, lda, b, ldb, shape, tile_at(step + 1));
      ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::MTE2_MTE1>(
          static_cast<int32_t>(slot));
      const uint32_t k_actual = std::min(kL1K, shape.k - kt * kL1K);
      for (uint32_t kp = 0; kp < k_actual; kp += kL0K) {
        const uint32_t part = std::min(kL0K, k_actual - kp);
        const auto l0 = static_cast<int32_t>(l0_slot_);
        ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::M_MTE1>(l0);
        if (kColumnMajorA && shape.m == 1) {
          // A one-column A^T with unit pitch is the row vector of the GEMV path.
          tile::CopyL1ToL0A<ElementA, false>::Run(l0a_[l0_slot_], l1a_[slot], 1, part, kp,
                                                  k_actual);
        } else {
          LoadA::Run(l0a_[l0_slot_], l1a_[slot], shape.m, part, kp, k_actual);
        }
        LoadB::Run(l0b_[l0_slot_], l1b_[slot], shape.n, part, kp, k_actual);
        ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::MTE1_M>(l0);
        ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::MTE1_M>(l0);
        Mma::Run(l0c_, l0a_[l0_slot_], l0b_[l0_slot_], shape.m, shape.n, part,
                 step == 0 && kp == 0);
        ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::M_MTE1>(l0);
        l0_slot_ = (l0_slot_ + 1) % kL0Stages;
      }
      ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::MTE1_MTE2>(
          static_cast<int32_t>(slot));
      if (kStages == 1 && step + 1 < k_tiles)
        LoadL1(slot, a, lda, b, ldb, shape, tile_at(step + 1));
      slot = next;
    }
    l1_slot_ = slot;
    ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::M_FIX>(0);
    ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::M_FIX>(0);
    CopyC::Run(c, l0c_, shape.m, shape.n, ldc);
    ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::FIX_M>(0);
  }

 private:
  // GM -> L1 slot `slot` of K tile `kt` of A and B.
  void LoadL1(uint32_t slot, const ::tessera::kernel::GlobalTensor<ElementA>& a, uint64_t lda,
              const ::tessera::kernel::GlobalTensor<ElementB>& b, uint64_t ldb,
              const GemmCoord& shape, uint32_t kt) {
    const uint32_t k0 = kt * kL1K;
    const uint32_t k_actual = std::min(kL1K, shape.k - k0);
    const auto id = static_cast<int32_t>(slot);
    ::tessera::kernel::WaitFlag<::tessera::kernel::HardEvent::MTE1_MTE2>(id);
    // A and B are read-only during a launch and only this object writes its L1 slots, so a slot
    // whose tag names the same source tile already holds exactly what the copy would write.
    const bool gemv = kColumnMajorA && shape.m == 1;
    const uint64_t a_at = gemv || !kColumnMajorA ? k0 : uint64_t{k0} * lda;
    const TileTag a_tag{a[a_at].GetPhyAddr(), lda, shape.m, k_actual};
    if (!(a_tag_[slot] == a_tag)) {
      if (gemv) {
        // Precondition (DeviceGemm checks it): lda == 1, so the column is contiguous.
        tile::CopyGmToL1<ElementA, false>::Run(l1a_[slot], a[k0], 1, k_actual, k_actual, true);
      } else if constexpr (kColumnMajorA) {
        CopyA::Run(l1a_[slot], a[a_at], k_actual, shape.m, lda);
      } else {
        CopyA::Run(l1a_[slot], a[a_at], shape.m, k_actual, lda, shape.m == 1);
      }
      a_tag_[slot] = a_tag;
    }
    const uint64_t b_at = kRowMajorB ? uint64_t{k0} * ldb : k0;
    const TileTag b_tag{b[b_at].GetPhyAddr(), ldb, shape.n, k_actual};
    if (!(b_tag_[slot] == b_tag)) {
      if constexpr (kRowMajorB) {
        CopyB::Run(l1b_[slot], b[b_at], k_actual, shape.n, ldb);
      } else {
        CopyB::Run(l1b_[slot], b[b_at], shape.n, k_actual, ldb);
      }
      b_tag_[slot] = b_tag;
    }
    ::tessera::kernel::SetFlag<::tessera::kernel::HardEvent::MTE2_MTE1>(id);
  }

  // Which source tile an L1 slot holds: its first element, row pitch, and extent (the block's
  // M or N and the K tile's depth); empty (never equal to a real tile) until the first copy.
  struct TileTag {
    const void* src = nullptr;
    uint64_t ld = 0;
    uint32_t mn = 0;
    uint32_t k = 0;
    bool operator==(const TileTag&) const = default;
  };

  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::A1> l1a_buf_[kStages];
  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::B1> l1b_buf_[kStages];
  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::A2> l0a_buf_[kL0Stages];
  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::B2> l0b_buf_[kL0Stages];
  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::CO1> l0c_buf_;
  ::tessera::kernel::LocalTensor<ElementA> l1a_[kStages];
  ::tessera::kernel::LocalTensor<ElementB> l1b_[kStages];
  ::tessera::kernel::LocalTensor<ElementA> l0a_[kL0Stages];
  ::tessera::kernel::LocalTensor<ElementB> l0b_[kL0Stages];
  ::tessera::kernel::LocalTensor<ElementAccumulator> l0c_;
  TileTag a_tag_[kStages];
  TileTag b_tag_[kStages];
  uint32_t l1_slot_ = 0;
  uint32_t l0_slot_ = 0;
};

}  // namespace tessera::gemm::block
