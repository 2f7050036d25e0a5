// matmul_leakyrelu_mix: C = LeakyRelu(A x B) as a MIX kernel with a manual split, the structure of
// the vendor's matmul_leakyrelu_basic_api sample. Each group (1 AIC + 2 AIV) owns singleCoreM rows:
//   AIC: GM -> L1 -> L0A/L0B, Mmad, Fixpipe (F322F16) of the half tile to C in GM, then
//        CrossCoreSetFlag<2, PIPE_FIX>(0) tells both AIVs of the group the tile is there;
//   AIV: CrossCoreWaitFlag(0) (a mode-0 wait pairs the mode-2 set on 2201), then LeakyRelu in UB on
//        its rows of the tile - the first ceil(rows/2) for sub-block 0, the rest for sub-block 1 -
//        and the rows back in place.
// On 2201 the cube and vector cores exchange data only through GM, as here.
#pragma once

#include <cstdint>

#include "tessera/kernel/kernel_operator.h"

namespace matmul_leakyrelu_mix {

using namespace AscendC;

template <uint32_t M, uint32_t K, uint32_t N, uint32_t baseM>
__global__ __mix__(1, 2) void MatmulLeakyReluKernel(GM_ADDR a, GM_ADDR b, GM_ADDR c, float alpha) {
  constexpr uint32_t baseK = K, baseN = N;  // one base block per group
  constexpr uint32_t kFractal = 16 * 16;
  constexpr uint32_t m1 = baseM / 16, k1 = baseK / 16, n1 = baseN / 16;
  static_assert(M % baseM == 0 && baseM % 16 == 0 && K % 16 == 0 && N % 16 == 0);

  if ASCEND_IS_AIC {
    const uint32_t group = GetBlockIdx();
    GlobalTensor<half> aGm, bGm, cGm;
    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + group * baseM * K, baseM * K);
    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b), K * N);
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(c) + group * baseM * N, baseM * N);
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0A> l0a;
    LocalMemAllocator<Hardware::L0B> l0b;
    LocalMemAllocator<Hardware::L0C> l0c;
    LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(baseM * baseK);
    LocalTensor<half> b1 = l1.Alloc<TPosition::B1, half>(baseK * baseN);
    LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(baseM * baseK);
    LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(baseK * baseN);
    LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(baseM * baseN);

    DataCopy(a1, aGm, Nd2NzParams{1, baseM, baseK, 0, K, baseM, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, baseK, baseN, 0, N, baseK, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < m1; ++i)
      LoadData(a2[i * k1 * kFractal], a1[i * kFractal],
               LoadData2DParams{0, k1, m1, 0, 0, false, 0});
    for (uint32_t i = 0; i < k1; ++i)
      LoadData(b2[i * n1 * kFractal], b1[i * kFractal], LoadData2DParams{0, n1, k1, 0, 0, true, 0});
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    Mmad(c1, a2, b2, MmadParams{baseM, baseN, baseK, 0, false, true});
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(cGm, c1,
            FixpipeParamsV220{baseN, baseM, baseM, N, false, QuantMode_t::F322F16, 0, 1, 0, 0, 0});
    CrossCoreSetFlag<0x2, PIPE_FIX>(0);
  }

  if ASCEND_IS_AIV {
    const uint32_t group = GetBlockIdx() / GetSubBlockNum();
    const uint32_t first = (baseM + 1) / 2;  // rows of sub-block 0; sub-block 1 takes the rest
    const uint32_t rows = GetSubBlockIdx() == 0 ? first : baseM - first;
    const uint32_t row0 = group * baseM + GetSubBlockIdx() * first;
    GlobalTensor<half> cGm;
    cGm.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(c) + row0 * N, rows * N);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, rows * baseN * sizeof(half));
    LocalTensor<half> x = buf.Get<half>();
    const DataCopyExtParams rowsParams{static_cast<uint16_t>(rows),
                                       static_cast<uint32_t>(baseN * sizeof(half)),
                                       static_cast<uint32_t>((N - baseN) * sizeof(half)), 0, 0};
    CrossCoreWaitFlag(0);
    DataCopyPad(x, cGm, rowsParams, DataCopyPadExtParams<half>{false, 0, 0, half(0.0f)});
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    LeakyRelu(x, x, half(alpha), static_cast<int32_t>(rows * baseN));
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopyPad(
        cGm, x,
        DataCopyExtParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(baseN * sizeof(half)),
                          0, static_cast<uint32_t>((N - baseN) * sizeof(half)), 0});
  }
}

}  // namespace matmul_leakyrelu_mix
