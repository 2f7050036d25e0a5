// Internals of the Matmul API: the cube engine that computes one job on an AIC with the cube
// instructions. Included by tessera/kernel/matmul/matmul.h.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/cube/cube.h"
#include "tessera/kernel/global_tensor.h"
#include "tessera/kernel/local_tensor.h"
#include "tessera/kernel/matmul/detail/matmul_protocol.h"
#include "tessera/kernel/pipe.h"

namespace tessera::kernel::detail {

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

}  // namespace tessera::kernel::detail
