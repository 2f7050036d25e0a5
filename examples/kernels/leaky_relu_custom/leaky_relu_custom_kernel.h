// leaky_relu_custom: y = x >= 0 ? x : alpha * x, an Ascend C vector kernel with one input.
// Same split and pipeline shape as add_custom; alpha travels in the tiling data.
#pragma once

#include <algorithm>

#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/split.h"
#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(LeakyReluTilingData)
TILING_DATA_FIELD_DEF(int64_t, totalLength)
TILING_DATA_FIELD_DEF(int64_t, perCore)  // elements per core, a multiple of 8 (32 bytes)
TILING_DATA_FIELD_DEF(int64_t, tileLength)
TILING_DATA_FIELD_DEF(float, alpha, 0.01f)
END_TILING_DATA_DEF;

namespace leaky_relu_op {

using namespace AscendC;

class KernelLeakyRelu {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const LeakyReluTilingData& t) {
    const int64_t begin = std::min<int64_t>(t.totalLength, t.perCore * GetBlockIdx());
    length_ = std::min<int64_t>(t.totalLength - begin, t.perCore);
    tileLength_ = static_cast<uint32_t>(t.tileLength);
    alpha_ = t.alpha;
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x) + begin,
                         static_cast<uint64_t>(length_));
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y) + begin,
                         static_cast<uint64_t>(length_));
    pipe_.InitBuffer(inQueue_, 2, tileLength_ * sizeof(float));
    pipe_.InitBuffer(outQueue_, 2, tileLength_ * sizeof(float));
  }

  __aicore__ inline void Process() {
    for (int64_t done = 0; done < length_; done += tileLength_) {
      const auto len = static_cast<uint32_t>(std::min<int64_t>(tileLength_, length_ - done));
      const bool whole = len % 8 == 0;
      const DataCopyExtParams pad{1, len * 4, 0, 0, 0};
      LocalTensor<float> x = inQueue_.AllocTensor<float>();
      if (whole) {
        DataCopy(x, xGm_[done], len);
      } else {
        DataCopyPad(x, xGm_[done], pad, DataCopyPadExtParams<float>{});
      }
      inQueue_.EnQue(x);
      LocalTensor<float> xin = inQueue_.DeQue<float>();
      LocalTensor<float> y = outQueue_.AllocTensor<float>();
      LeakyRelu(y, xin, alpha_, static_cast<int32_t>(len));
      outQueue_.EnQue(y);
      inQueue_.FreeTensor(xin);
      LocalTensor<float> yout = outQueue_.DeQue<float>();
      if (whole) {
        DataCopy(yGm_[done], yout, len);
      } else {
        DataCopyPad(yGm_[done], yout, pad);
      }
      outQueue_.FreeTensor(yout);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 2> inQueue_;
  TQue<TPosition::VECOUT, 2> outQueue_;
  GlobalTensor<float> xGm_, yGm_;
  int64_t length_ = 0;
  uint32_t tileLength_ = 0;
  float alpha_ = 0;
};

// Host tiling: equal 32-byte-aligned slices over the vector cores, tiles for 2 double-buffered
// queues.
inline LeakyReluTilingData MakeTiling(int64_t n, float alpha, uint32_t cores, size_t ub_bytes,
                                      uint32_t* block_dim) {
  LeakyReluTilingData t;
  t.totalLength = n;
  t.perCore = std::max<int64_t>(8, ((n + cores - 1) / cores + 7) / 8 * 8);
  t.tileLength = static_cast<int64_t>(ub_bytes / 4 / 32 * 32 / sizeof(float));
  t.alpha = alpha;
  *block_dim = static_cast<uint32_t>(std::max<int64_t>(1, (n + t.perCore - 1) / t.perCore));
  return t;
}

}  // namespace leaky_relu_op

extern "C" __global__ __aicore__ inline void leaky_relu_custom(GM_ADDR x, GM_ADDR y,
                                                               GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(LeakyReluTilingData, tilingData, tiling);
  leaky_relu_op::KernelLeakyRelu op;
  op.Init(x, y, tilingData);
  op.Process();
}
