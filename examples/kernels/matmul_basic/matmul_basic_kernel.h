// matmul_basic: C = A x B with the cube's basic API, the structure of the vendor's
// matmul_basic_api sample: a `__cube__` kernel (AIC only), half in, fp32 accumulation, half out.
// Block i computes rows i*singleCoreM .. of C in one tile: GM -> L1 (ND -> Nz), L1 -> L0A (Zz) /
// L0B (Zn), Mmad, Fixpipe (Nz -> ND with the F322F16 cast) back to GM.
#pragma once

#include <cstdint>

#include "tessera/kernel/kernel_operator.h"

namespace matmul_basic {

using namespace AscendC;

template <uint32_t M, uint32_t K, uint32_t N, uint32_t singleCoreM, uint32_t baseM, uint32_t baseK,
          uint32_t baseN>
__global__ __cube__ void MatmulKernel(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
  static_assert(singleCoreM == baseM && baseK == K && baseN == N,
                "one base block per core in this sample");
  InitSocState();
  constexpr uint32_t kFractal = 16 * 16;  // half elements per 512-byte fractal
  constexpr uint32_t m1 = baseM / 16, k1 = baseK / 16, n1 = baseN / 16;

  GlobalTensor<half> aGm, bGm, cGm;
  aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + GetBlockIdx() * singleCoreM * K,
                      singleCoreM * K);
  bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), K * N);
  cGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(c) + GetBlockIdx() * singleCoreM * N,
                      singleCoreM * N);

  LocalMemAllocator<Hardware::L1> l1Allocator;
  LocalMemAllocator<Hardware::L0A> l0aAllocator;
  LocalMemAllocator<Hardware::L0B> l0bAllocator;
  LocalMemAllocator<Hardware::L0C> l0cAllocator;
  LocalTensor<half> a1 = l1Allocator.Alloc<TPosition::A1, half>(baseM * baseK);
  LocalTensor<half> b1 = l1Allocator.Alloc<TPosition::B1, half>(baseK * baseN);
  LocalTensor<half> a2 = l0aAllocator.Alloc<TPosition::A2, half>(baseM * baseK);
  LocalTensor<half> b2 = l0bAllocator.Alloc<TPosition::B2, half>(baseK * baseN);
  LocalTensor<float> c1 = l0cAllocator.Alloc<TPosition::CO1, float>(baseM * baseN);

  // GM (ND) -> L1 (Nz).
  DataCopy(a1, aGm, Nd2NzParams{1, baseM, baseK, 0, K, baseM, 1, 0});
  DataCopy(b1, bGm, Nd2NzParams{1, baseK, baseN, 0, N, baseK, 1, 0});
  SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
  WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);

  // L1 (Nz) -> L0A (Zz): one strip of 16 rows at a time.
  for (uint32_t i = 0; i < m1; ++i)
    LoadData(a2[i * k1 * kFractal], a1[i * kFractal], LoadData2DParams{0, k1, m1, 0, 0, false, 0});
  // L1 (Nz) -> L0B (Zn): each fractal transposed.
  for (uint32_t i = 0; i < k1; ++i)
    LoadData(b2[i * n1 * kFractal], b1[i * kFractal], LoadData2DParams{0, n1, k1, 0, 0, true, 0});
  SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
  WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);

  Mmad(c1, a2, b2, MmadParams{baseM, baseN, baseK, 0, false, true});
  SetFlag<HardEvent::M_FIX>(EVENT_ID0);
  WaitFlag<HardEvent::M_FIX>(EVENT_ID0);

  // L0C (Nz, fp32) -> GM (ND, half).
  Fixpipe(cGm, c1,
          FixpipeParamsV220{baseN, baseM, baseM, N, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0});
  PipeBarrier<PIPE_ALL>();
}

}  // namespace matmul_basic
