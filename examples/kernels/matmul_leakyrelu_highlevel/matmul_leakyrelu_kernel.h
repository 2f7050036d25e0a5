// matmul_leakyrelu_highlevel: c = LeakyRelu(a * b + bias, alpha) as a MIX kernel with the
// high-level Matmul API, in the shape of the vendor's MatmulLeakyReluCustom operator.
//
// Each AIV is a Matmul client over its own block of C (the tiling splits C over all AIVs); the AIC
// of its group serves the cube work inside REGIST_MATMUL_OBJ. Per base block the AIV fetches C into
// UB (GetTensorC, sequential write: a baseM x baseN tile), applies LeakyRelu and writes the valid
// part back to GM.
#pragma once

#include <algorithm>
#include <cstdint>

#include "tessera/kernel/kernel_operator.h"
#include "tessera/kernel/matmul/matmul.h"
#include "tessera/tiling/matmul_tiling.h"
#include "tessera/tiling/tiling_data.h"

using tessera::tiling::TCubeTiling;

BEGIN_TILING_DATA_DEF(MatmulLeakyreluCustomTilingData)
TILING_DATA_FIELD_DEF(float, alpha, 0.001f)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData)
END_TILING_DATA_DEF;

namespace matmul_leakyrelu_op {

using namespace AscendC;

template <class aType, class bType, class cType, class biasType>
class MatmulLeakyKernel {
 public:
  using MatmulT = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, aType>,
                         MatmulType<TPosition::GM, CubeFormat::ND, bType>,
                         MatmulType<TPosition::VECIN, CubeFormat::ND, cType>,
                         MatmulType<TPosition::GM, CubeFormat::ND, biasType>>;

  // Offsets of this AIV's block: M blocks vary fastest over the core index.
  __aicore__ inline bool Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                              const MatmulLeakyreluCustomTilingData& t) {
    tiling_ = t.cubeTilingData;
    alpha_ = t.alpha;
    const int32_t core = static_cast<int32_t>(GetBlockIdx());
    if (core >= tiling_.usedCoreNum) return false;
    const int32_t mBlocks = (tiling_.M + tiling_.singleCoreM - 1) / tiling_.singleCoreM;
    const int32_t mCore = core % mBlocks, nCore = core / mBlocks;
    const int64_t m0 = int64_t{mCore} * tiling_.singleCoreM;
    const int64_t n0 = int64_t{nCore} * tiling_.singleCoreN;
    tailM_ = static_cast<int32_t>(std::min<int64_t>(tiling_.singleCoreM, tiling_.M - m0));
    tailN_ = static_cast<int32_t>(std::min<int64_t>(tiling_.singleCoreN, tiling_.N - n0));
    aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ aType*>(a) + m0 * tiling_.Ka);
    bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ bType*>(b) + n0);
    biasGm_.SetGlobalBuffer(reinterpret_cast<__gm__ biasType*>(bias) + n0);
    cGm_.SetGlobalBuffer(reinterpret_cast<__gm__ cType*>(c) + m0 * tiling_.N + n0);
    return true;
  }

  __aicore__ inline void Process(TPipe* pipe) {
    pipe->InitBuffer(reluQueue_, 1, tiling_.baseM * tiling_.baseN * sizeof(cType));
    matmulObj.SetTensorA(aGm_);
    matmulObj.SetTensorB(bGm_);
    matmulObj.SetBias(biasGm_);
    matmulObj.SetTail(tailM_, tailN_);
    const int32_t roundM = (tailM_ + tiling_.baseM - 1) / tiling_.baseM;
    uint32_t count = 0;
    while (matmulObj.template Iterate<true>()) {
      LocalTensor<cType> relu = reluQueue_.AllocTensor<cType>();
      matmulObj.template GetTensorC<true>(relu, false, true);
      LeakyRelu(relu, relu, static_cast<cType>(alpha_),
                static_cast<int32_t>(tiling_.baseM * tiling_.baseN));
      reluQueue_.EnQue(relu);
      CopyOut(count++, roundM);
    }
    matmulObj.End();
  }

  MatmulT matmulObj;

 private:
  // The block (count % roundM, count / roundM) of this core's C: its valid rows x cols, row by row
  // (DataCopyPad: the UB tile's rows are baseN elements apart).
  __aicore__ inline void CopyOut(uint32_t count, int32_t roundM) {
    LocalTensor<cType> relu = reluQueue_.DeQue<cType>();
    const int64_t bm = count % roundM, bn = count / roundM;
    const int64_t rows = std::min<int64_t>(tiling_.baseM, tailM_ - bm * tiling_.baseM);
    const int64_t cols = std::min<int64_t>(tiling_.baseN, tailN_ - bn * tiling_.baseN);
    const uint32_t rowBytes = static_cast<uint32_t>(cols * sizeof(cType));
    const uint32_t ubGap =
        static_cast<uint32_t>((tiling_.baseN * sizeof(cType) - (rowBytes + 31) / 32 * 32) / 32);
    const DataCopyExtParams params{static_cast<uint16_t>(rows), rowBytes, ubGap,
                                   static_cast<uint32_t>((tiling_.N - cols) * sizeof(cType)), 0};
    DataCopyPad(cGm_[bm * tiling_.baseM * tiling_.N + bn * tiling_.baseN], relu, params);
    reluQueue_.FreeTensor(relu);
  }

  TCubeTiling tiling_;
  float alpha_ = 0;
  int32_t tailM_ = 0, tailN_ = 0;
  GlobalTensor<aType> aGm_;
  GlobalTensor<bType> bGm_;
  GlobalTensor<biasType> biasGm_;
  GlobalTensor<cType> cGm_;
  TQue<TPosition::VECIN, 1> reluQueue_;
};

}  // namespace matmul_leakyrelu_op

// __mix__(1, 2): launched with KernelType::kMix, blockDim = groups of 1 AIC + 2 AIV.
extern "C" __global__ __aicore__ inline void matmul_leakyrelu_custom(GM_ADDR a, GM_ADDR b,
                                                                     GM_ADDR bias, GM_ADDR c,
                                                                     GM_ADDR workspace,
                                                                     GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(MatmulLeakyreluCustomTilingData, tilingData, tiling);
  matmul_leakyrelu_op::MatmulLeakyKernel<half, half, float, float> op;
  AscendC::TPipe pipe;
  REGIST_MATMUL_OBJ(&pipe, workspace, op.matmulObj, &tilingData.cubeTilingData);
  if (!op.Init(a, b, bias, c, tilingData)) return;
  op.Process(&pipe);
}
