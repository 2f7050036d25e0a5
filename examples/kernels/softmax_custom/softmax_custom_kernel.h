// softmax_custom: numerically stable softmax over the rows of a [rows, cols] float matrix, built
// from reductions: max, subtract, exp, sum, scale. Rows are split contiguously over the cores;
// each row is one UB tile (cols up to a third of UB), moved with DataCopyPad so any width works.
#pragma once

#include <algorithm>

#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(SoftmaxTilingData)
TILING_DATA_FIELD_DEF(int64_t, rows)
TILING_DATA_FIELD_DEF(int64_t, cols)
TILING_DATA_FIELD_DEF(int64_t, rowsPerCore)
TILING_DATA_FIELD_DEF(int64_t, paddedCols)  // cols rounded up to 8 (32 bytes)
END_TILING_DATA_DEF;

namespace softmax_op {

using namespace AscendC;

class KernelSoftmax {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const SoftmaxTilingData& t) {
    cols_ = t.cols;
    padded_ = static_cast<uint32_t>(t.paddedCols);
    rowBegin_ = std::min<int64_t>(t.rows, t.rowsPerCore * GetBlockIdx());
    rowEnd_ = std::min<int64_t>(t.rows, rowBegin_ + t.rowsPerCore);
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x),
                         static_cast<uint64_t>(t.rows * t.cols));
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(y),
                         static_cast<uint64_t>(t.rows * t.cols));
    pipe_.InitBuffer(inQueue_, 1, padded_ * sizeof(float));
    pipe_.InitBuffer(outQueue_, 1, padded_ * sizeof(float));
    pipe_.InitBuffer(work_, padded_ * sizeof(float));
    pipe_.InitBuffer(scalar_, 32);
  }

  __aicore__ inline void Process() {
    const auto n = static_cast<int32_t>(cols_);
    const DataCopyExtParams row{1, static_cast<uint32_t>(cols_ * 4), 0, 0, 0};
    for (int64_t r = rowBegin_; r < rowEnd_; ++r) {
      LocalTensor<float> x = inQueue_.AllocTensor<float>();
      DataCopyPad(x, xGm_[r * cols_], row, DataCopyPadExtParams<float>{});
      inQueue_.EnQue(x);
      LocalTensor<float> xin = inQueue_.DeQue<float>();
      LocalTensor<float> y = outQueue_.AllocTensor<float>();
      LocalTensor<float> s = scalar_.Get<float>();
      ReduceMax(s, xin, work_.Get<float>(), n);
      Adds(y, xin, -s.GetValue(0), n);
      Exp(y, y, n);
      ReduceSum(s, y, work_.Get<float>(), n);
      Muls(y, y, 1.0f / s.GetValue(0), n);
      inQueue_.FreeTensor(xin);
      outQueue_.EnQue(y);
      LocalTensor<float> yout = outQueue_.DeQue<float>();
      DataCopyPad(yGm_[r * cols_], yout, row);
      outQueue_.FreeTensor(yout);
    }
  }

 private:
  TPipe pipe_;
  TQue<TPosition::VECIN, 1> inQueue_;
  TQue<TPosition::VECOUT, 1> outQueue_;
  TBuf<TPosition::VECCALC> work_, scalar_;
  GlobalTensor<float> xGm_, yGm_;
  int64_t cols_ = 0, rowBegin_ = 0, rowEnd_ = 0;
  uint32_t padded_ = 0;
};

// Host tiling. Fails (returns false) when a row does not fit a third of UB.
inline bool MakeTiling(int64_t rows, int64_t cols, uint32_t cores, size_t ub_bytes,
                       SoftmaxTilingData* t, uint32_t* block_dim) {
  t->rows = rows;
  t->cols = cols;
  t->paddedCols = (cols + 7) / 8 * 8;
  if (cols < 1 || rows < 1 || static_cast<size_t>(t->paddedCols) * 4 * 3 + 32 > ub_bytes)
    return false;
  t->rowsPerCore = (rows + cores - 1) / cores;
  *block_dim = static_cast<uint32_t>((rows + t->rowsPerCore - 1) / t->rowsPerCore);
  return true;
}

}  // namespace softmax_op

extern "C" __global__ __aicore__ inline void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(SoftmaxTilingData, tilingData, tiling);
  softmax_op::KernelSoftmax op;
  op.Init(x, y, tilingData);
  op.Process();
}
