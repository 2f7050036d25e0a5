// add_custom: z = x + y, written as an Ascend C vector kernel.
//
// Host tiling (AddCustomTiling) splits the input with the ATVOSS uniform split in units of one
// 32-byte block, so every core's slice starts 32-byte aligned and only the last core has a tail.
// Each core streams its slice through UB in tiles: CopyIn (DataCopy GM->UB into a depth-2 VECIN
// queue), Compute (Add into a depth-2 VECOUT queue), CopyOut (DataCopy UB->GM). The last tile of
// the last core may be a partial block and moves with DataCopyPad.
#pragma once

#include <algorithm>

#include "tessera/kernel/kernel_operator.h"
#include "tessera/tiling/split.h"
#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(AddCustomTilingData)
TILING_DATA_FIELD_DEF(int64_t, blockNum)
TILING_DATA_FIELD_DEF(int64_t, unitNumPerCore)
TILING_DATA_FIELD_DEF(int64_t, moreUnitCoreNum)
TILING_DATA_FIELD_DEF(int64_t, tailNum)
TILING_DATA_FIELD_DEF(int64_t, unitNum)
TILING_DATA_FIELD_DEF(int64_t, tileLength)  // elements per UB tile, a multiple of unitNum
END_TILING_DATA_DEF;

namespace add_custom_op {

using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;  // double buffering

template <class T>
class KernelAdd {
 public:
  __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData& t) {
    const tessera::tiling::UniformSplitConfig split{
        static_cast<uint32_t>(t.blockNum), static_cast<uint64_t>(t.unitNumPerCore),
        static_cast<uint64_t>(t.moreUnitCoreNum), static_cast<uint64_t>(t.tailNum),
        static_cast<uint64_t>(t.unitNum)};
    const uint64_t offset = split.CoreOffset(GetBlockIdx());
    length_ = static_cast<int64_t>(split.CoreElementCount(GetBlockIdx()));
    tileLength_ = static_cast<uint32_t>(t.tileLength);
    xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(x) + offset, static_cast<uint64_t>(length_));
    yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(y) + offset, static_cast<uint64_t>(length_));
    zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(z) + offset, static_cast<uint64_t>(length_));
    pipe_.InitBuffer(inQueueX_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(inQueueY_, BUFFER_NUM, tileLength_ * sizeof(T));
    pipe_.InitBuffer(outQueueZ_, BUFFER_NUM, tileLength_ * sizeof(T));
  }

  __aicore__ inline void Process() {
    for (int64_t done = 0; done < length_; done += tileLength_) {
      const auto len = static_cast<uint32_t>(std::min<int64_t>(tileLength_, length_ - done));
      CopyIn(done, len);
      Compute(len);
      CopyOut(done, len);
    }
  }

 private:
  static constexpr uint32_t kBlockElems = 32 / sizeof(T);

  __aicore__ inline void CopyIn(int64_t offset, uint32_t len) {
    LocalTensor<T> xLocal = inQueueX_.template AllocTensor<T>();
    LocalTensor<T> yLocal = inQueueY_.template AllocTensor<T>();
    if (len % kBlockElems == 0) {
      DataCopy(xLocal, xGm_[offset], len);
      DataCopy(yLocal, yGm_[offset], len);
    } else {
      const DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0};
      DataCopyPad(xLocal, xGm_[offset], params, DataCopyPadExtParams<T>{});
      DataCopyPad(yLocal, yGm_[offset], params, DataCopyPadExtParams<T>{});
    }
    inQueueX_.EnQue(xLocal);
    inQueueY_.EnQue(yLocal);
  }

  __aicore__ inline void Compute(uint32_t len) {
    LocalTensor<T> xLocal = inQueueX_.template DeQue<T>();
    LocalTensor<T> yLocal = inQueueY_.template DeQue<T>();
    LocalTensor<T> zLocal = outQueueZ_.template AllocTensor<T>();
    Add(zLocal, xLocal, yLocal, static_cast<int32_t>(len));
    outQueueZ_.EnQue(zLocal);
    inQueueX_.FreeTensor(xLocal);
    inQueueY_.FreeTensor(yLocal);
  }

  __aicore__ inline void CopyOut(int64_t offset, uint32_t len) {
    LocalTensor<T> zLocal = outQueueZ_.template DeQue<T>();
    if (len % kBlockElems == 0) {
      DataCopy(zGm_[offset], zLocal, len);
    } else {
      DataCopyPad(zGm_[offset], zLocal,
                  DataCopyExtParams{1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0});
    }
    outQueueZ_.FreeTensor(zLocal);
  }

  TPipe pipe_;
  TQue<TPosition::VECIN, BUFFER_NUM> inQueueX_, inQueueY_;
  TQue<TPosition::VECOUT, BUFFER_NUM> outQueueZ_;
  GlobalTensor<T> xGm_, yGm_, zGm_;
  int64_t length_ = 0;
  uint32_t tileLength_ = 0;
};

}  // namespace add_custom_op

extern "C" __global__ __aicore__ inline void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(AddCustomTilingData, tilingData, tiling);
  add_custom_op::KernelAdd<float> op;
  op.Init(x, y, z, tilingData);
  op.Process();
}
