// Kernels of the binary elementwise ops: one entry per (op, dtype, broadcast mode).
//
// Flat modes stream each core's slice of elements through UB like add_custom; a scalar input is
// duplicated into a UB buffer once per core. The general mode walks the core's rows of the
// coalesced output: a tile holds several whole rows (each padded to a 32-byte pitch) or one chunk
// of a long row; an input row is one DataCopyPad (runs of contiguous rows are one multi-block
// copy), or a Duplicate when the input is broadcast along the innermost dimension.
#include <algorithm>
#include <cstdint>

#include "../common/kernel_common.h"
#include "binary_tiling.h"

namespace tessera::ops {
namespace {

#define TESSERA_BINARY_FUNCTOR(Name, Instruction)                                                \
  struct Name {                                                                                  \
    template <class T>                                                                           \
    static void Apply(const LocalTensor<T>& z, const LocalTensor<T>& a, const LocalTensor<T>& b, \
                      int32_t n) {                                                               \
      Instruction(z, a, b, n);                                                                   \
    }                                                                                            \
  };
TESSERA_BINARY_FUNCTOR(AddFn, Add)
TESSERA_BINARY_FUNCTOR(SubFn, Sub)
TESSERA_BINARY_FUNCTOR(MulFn, Mul)
TESSERA_BINARY_FUNCTOR(DivFn, Div)
TESSERA_BINARY_FUNCTOR(MaxFn, Max)
TESSERA_BINARY_FUNCTOR(MinFn, Min)
#undef TESSERA_BINARY_FUNCTOR

template <class T, class Op, BroadcastMode kMode>
class BinaryKernel {
  static constexpr bool kX1Scalar = kMode == BroadcastMode::kScalarX1;
  static constexpr bool kX2Scalar = kMode == BroadcastMode::kScalarX2;
  static constexpr bool kGeneral = kMode == BroadcastMode::kGeneral;

 public:
  // Returns false when this core has nothing to do.
  bool Init(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, const BinaryTilingData& t) {
    t_ = t;
    tile_ = static_cast<uint32_t>(t.tileLength);
    const tiling::UniformSplitConfig split = SplitOf(t);
    begin_ = split.CoreOffset(GetBlockIdx());
    count_ = split.CoreElementCount(GetBlockIdx());
    if (count_ == 0) return false;
    auto* p1 = reinterpret_cast<T*>(x1);
    auto* p2 = reinterpret_cast<T*>(x2);
    auto* py = reinterpret_cast<T*>(y);
    if constexpr (kGeneral) {  // begin_/count_ are rows; inputs are addressed through strides
      x1Gm_.SetGlobalBuffer(p1, static_cast<uint64_t>(t.x1Numel));
      x2Gm_.SetGlobalBuffer(p2, static_cast<uint64_t>(t.x2Numel));
      yGm_.SetGlobalBuffer(py, static_cast<uint64_t>(t.yNumel));
    } else {
      x1Gm_.SetGlobalBuffer(kX1Scalar ? p1 : p1 + begin_, kX1Scalar ? 1 : count_);
      x2Gm_.SetGlobalBuffer(kX2Scalar ? p2 : p2 + begin_, kX2Scalar ? 1 : count_);
      yGm_.SetGlobalBuffer(py + begin_, count_);
    }
    const uint32_t bytes = tile_ * static_cast<uint32_t>(sizeof(T));
    if constexpr (!kX1Scalar) pipe_.InitBuffer(inQ1_, kBufferNum, bytes);
    if constexpr (!kX2Scalar) pipe_.InitBuffer(inQ2_, kBufferNum, bytes);
    pipe_.InitBuffer(outQ_, kBufferNum, bytes);
    if constexpr (kX1Scalar || kX2Scalar) {
      // Only as many copies of the scalar as the longest tile of this core needs.
      const auto n = static_cast<uint32_t>(std::min<uint64_t>(tile_, count_));
      pipe_.InitBuffer(scalarBuf_, n * static_cast<uint32_t>(sizeof(T)));
      scalar_ = scalarBuf_.template Get<T>();
      Duplicate(scalar_, (kX1Scalar ? x1Gm_ : x2Gm_).GetValue(0), static_cast<int32_t>(n));
    }
    return true;
  }

  void Process() {
    if constexpr (kGeneral) {
      ProcessRows();
    } else {
      for (uint64_t done = 0; done < count_; done += tile_) {
        const auto len = static_cast<uint32_t>(std::min<uint64_t>(tile_, count_ - done));
        if constexpr (!kX1Scalar) Load(inQ1_, x1Gm_[done], len);
        if constexpr (!kX2Scalar) Load(inQ2_, x2Gm_[done], len);
        LocalTensor<T> z = Compute(len);
        CopyOut(yGm_[done], z, len);
        outQ_.FreeTensor(z);
      }
    }
  }

 private:
  template <class Q>
  void Load(Q& q, const GlobalTensor<T>& src, uint32_t len) {
    LocalTensor<T> buf = q.template AllocTensor<T>();
    CopyIn(buf, src, len);
    q.EnQue(buf);
  }

  // z = a <op> b over `n` elements; frees the input tiles, returns the output tile.
  LocalTensor<T> Compute(uint32_t n) {
    LocalTensor<T> a, b;
    if constexpr (kX1Scalar) {
      a = scalar_;
    } else {
      a = inQ1_.template DeQue<T>();
    }
    if constexpr (kX2Scalar) {
      b = scalar_;
    } else {
      b = inQ2_.template DeQue<T>();
    }
    LocalTensor<T> z = outQ_.template AllocTensor<T>();
    Op::Apply(z, a, b, static_cast<int32_t>(n));
    if constexpr (!kX1Scalar) inQ1_.FreeTensor(a);
    if constexpr (!kX2Scalar) inQ2_.FreeTensor(b);
    return z;
  }

  void ProcessRows() {
    const auto row_len = static_cast<uint64_t>(t_.rowLength);
    const uint64_t chunk = std::min<uint64_t>(row_len, tile_);
    const uint64_t end = begin_ + count_;
    for (uint64_t row = begin_; row < end;) {
      const auto k = static_cast<uint32_t>(
          std::min<uint64_t>(static_cast<uint64_t>(t_.rowsPerTile), end - row));
      for (uint64_t c0 = 0; c0 < row_len; c0 += chunk) {
        const auto len = static_cast<uint32_t>(std::min<uint64_t>(chunk, row_len - c0));
        const uint32_t pitch = AlignUp<T>(len);
        LoadRows(inQ1_, x1Gm_, t_.x1Strides, row, k, c0, len, pitch);
        LoadRows(inQ2_, x2Gm_, t_.x2Strides, row, k, c0, len, pitch);
        LocalTensor<T> z = Compute((k - 1) * pitch + len);
        // k > 1 only when whole rows fit, so the k rows are contiguous in y.
        DataCopyPad(yGm_[row * row_len + c0], z,
                    DataCopyExtParams{static_cast<uint16_t>(k),
                                      static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0});
        outQ_.FreeTensor(z);
      }
      row += k;
    }
  }

  // Element offset of the start of output row `row` in an input with these strides.
  int64_t RowOffset(const int64_t* strides, uint64_t row) const {
    int64_t off = 0;
    auto rem = static_cast<int64_t>(row);
    for (int64_t d = t_.rank - 2; d >= 0; --d) {
      off += rem % t_.outDims[d] * strides[d];
      rem /= t_.outDims[d];
    }
    return off;
  }

  // Rows [row, row + k), columns [c0, c0 + len) of an input into one tile, row j at j * pitch.
  template <class Q>
  void LoadRows(Q& q, const GlobalTensor<T>& gm, const int64_t* strides, uint64_t row, uint32_t k,
                uint64_t c0, uint32_t len, uint32_t pitch) {
    LocalTensor<T> buf = q.template AllocTensor<T>();
    const int64_t inner = strides[t_.rank - 1];  // 1, or 0 when broadcast along the row
    const auto outer_dim = static_cast<uint64_t>(t_.outDims[t_.rank - 2]);
    // Consecutive rows inside one run of the next-outer dim are adjacent in GM.
    const bool dense_rows = inner == 1 && strides[t_.rank - 2] == t_.rowLength;
    for (uint32_t j = 0; j < k;) {
      const int64_t off = RowOffset(strides, row + j) + static_cast<int64_t>(c0) * inner;
      if (inner == 0) {
        Duplicate(buf[j * pitch], gm.GetValue(static_cast<uint64_t>(off)),
                  static_cast<int32_t>(pitch));
        ++j;
        continue;
      }
      uint32_t run = 1;
      if (dense_rows) {
        run = static_cast<uint32_t>(std::min<uint64_t>(k - j, outer_dim - (row + j) % outer_dim));
      }
      DataCopyPad(buf[j * pitch], gm[static_cast<uint64_t>(off)],
                  DataCopyExtParams{static_cast<uint16_t>(run),
                                    static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0},
                  DataCopyPadExtParams<T>{true, 0, static_cast<uint8_t>(pitch - len), T{}});
      j += run;
    }
    q.EnQue(buf);
  }

  BinaryTilingData t_;
  uint32_t tile_ = 0;
  uint64_t begin_ = 0;  // elements (flat modes) or rows (general mode)
  uint64_t count_ = 0;
  TPipe pipe_;
  TQue<TPosition::VECIN, kBufferNum> inQ1_, inQ2_;
  TQue<TPosition::VECOUT, kBufferNum> outQ_;
  TBuf<TPosition::VECCALC> scalarBuf_;
  LocalTensor<T> scalar_;
  GlobalTensor<T> x1Gm_, x2Gm_, yGm_;
};

template <class T, class Op, BroadcastMode kMode>
__global__ __aicore__ void BinaryEntry(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR /*workspace*/,
                                       GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(BinaryTilingData, t, tiling);
  BinaryKernel<T, Op, kMode> op;
  if (op.Init(x1, x2, y, t)) op.Process();
}

#define TESSERA_BINARY_MODE_ENTRY(kernel, Op, T, mode)                                    \
  TESSERA_KERNEL_ENTRY(kernel, BinaryKey(DataTypeOf<T>::value, BroadcastMode::mode), AIV, \
                       BinaryEntry<T, Op, BroadcastMode::mode>)
#define TESSERA_BINARY_TYPE_ENTRIES(kernel, Op, T)    \
  TESSERA_BINARY_MODE_ENTRY(kernel, Op, T, kSame)     \
  TESSERA_BINARY_MODE_ENTRY(kernel, Op, T, kScalarX2) \
  TESSERA_BINARY_MODE_ENTRY(kernel, Op, T, kScalarX1) \
  TESSERA_BINARY_MODE_ENTRY(kernel, Op, T, kGeneral)
#define TESSERA_BINARY_FLOAT_ENTRIES(kernel, Op) \
  TESSERA_BINARY_TYPE_ENTRIES(kernel, Op, float) \
  TESSERA_BINARY_TYPE_ENTRIES(kernel, Op, half)  \
  TESSERA_BINARY_TYPE_ENTRIES(kernel, Op, bfloat16_t)
#define TESSERA_BINARY_ALL_ENTRIES(kernel, Op) \
  TESSERA_BINARY_FLOAT_ENTRIES(kernel, Op)     \
  TESSERA_BINARY_TYPE_ENTRIES(kernel, Op, int32_t)

TESSERA_BINARY_ALL_ENTRIES(add, AddFn)
TESSERA_BINARY_ALL_ENTRIES(sub, SubFn)
TESSERA_BINARY_ALL_ENTRIES(mul, MulFn)
TESSERA_BINARY_FLOAT_ENTRIES(div, DivFn)
TESSERA_BINARY_ALL_ENTRIES(maximum, MaxFn)
TESSERA_BINARY_ALL_ENTRIES(minimum, MinFn)

}  // namespace
}  // namespace tessera::ops
