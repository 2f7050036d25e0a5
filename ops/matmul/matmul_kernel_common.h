// Kernel side of the matmul operators: the gemm templates instantiated per input type and layout,
// run from the tiling data by one entry per tiling key.
#pragma once

#include <cstdint>

#include "../common/kernel_common.h"
#include "matmul_tiling.h"
#include "matmul_types.h"
#include "tessera/gemm/gemm.h"

namespace tessera::ops::matmul {

template <class Params>
void FillGemm(const MatmulTilingData& t, Params& g) {
  g.problem = {static_cast<uint32_t>(t.m), static_cast<uint32_t>(t.n), static_cast<uint32_t>(t.k)};
  g.tile = {static_cast<uint32_t>(t.tileM), static_cast<uint32_t>(t.tileN)};
  g.batch.rank = static_cast<uint32_t>(t.batchRank);
  for (uint32_t i = 0; i < g.batch.rank; ++i) {
    g.batch.dims[i] = static_cast<uint64_t>(t.batchDims[i]);
    g.batch.stride_a[i] = static_cast<uint64_t>(t.batchStrideA[i]);
    g.batch.stride_b[i] = static_cast<uint64_t>(t.batchStrideB[i]);
  }
  g.lda = static_cast<uint64_t>(t.lda);
  g.ldb = static_cast<uint64_t>(t.ldb);
  g.ldc = static_cast<uint64_t>(t.ldc);
}

// AIC launch: y = x1 x2.
template <class T, bool kTA, bool kTB, bool kLarge>
void RunBasic(const MatmulTilingData& t, GM_ADDR x1, GM_ADDR x2, GM_ADDR y) {
  using Kernel = BasicKernel<T, kTA, kTB, kLarge>;
  typename Kernel::Params p;
  FillGemm(t, p);
  p.a = reinterpret_cast<const T*>(x1);
  p.b = reinterpret_cast<const T*>(x2);
  p.c = reinterpret_cast<OutputOf<T>*>(y);
  Kernel{}(p);
}

// MIX launch: y = act(alpha * x1 x2 + bias + beta * x).
template <class T, bool kTA, bool kTB, bool kLarge>
void RunMix(const MatmulTilingData& t, GM_ADDR x1, GM_ADDR x2, GM_ADDR bias, GM_ADDR x, GM_ADDR y,
            GM_ADDR workspace) {
  using Kernel = MixKernel<T, kTA, kTB, kLarge>;
  typename Kernel::Params p;
  FillGemm(t, p.gemm);
  p.gemm.a = reinterpret_cast<const T*>(x1);
  p.gemm.b = reinterpret_cast<const T*>(x2);
  p.gemm.c = reinterpret_cast<OutputOf<T>*>(y);
  p.epilogue.alpha = t.alpha;
  p.epilogue.beta = t.beta;
  p.epilogue.act = static_cast<gemm::epilogue::Activation>(t.act);
  p.epilogue.negative_slope = t.negativeSlope;
  p.epilogue.bias = t.hasBias ? bias : nullptr;
  p.epilogue.x_mode = static_cast<gemm::epilogue::Broadcast>(t.xMode);
  p.epilogue.x = x;
  p.epilogue.ldx = static_cast<uint64_t>(t.ldx);
  p.workspace = reinterpret_cast<gemm::AccumulatorOf<T>*>(workspace);
  p.chunk_rows = static_cast<uint32_t>(t.chunkRows);
  Kernel{}(p);
}

}  // namespace tessera::ops::matmul
