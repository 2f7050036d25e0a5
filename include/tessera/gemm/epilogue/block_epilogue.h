// Epilogue layer: what the AIVs of a MIX group do with a C block the AIC left in a GM workspace.
//
//   D = act(alpha * C + bias + beta * X)    rounded once to ElementD
//
// with C the accumulator block (float, or int32 for int8 inputs), bias a row of N values
// (broadcast over rows), X a residual of [M, N] or broadcast from [N], [M, 1] or a scalar, and act
// one of none, relu, gelu (tanh form, Ascend's default), silu, leaky relu. Each part is skipped
// when unused (alpha == 1, no bias, no X, act none). The arithmetic runs in the accumulator type
// with the kernel API's vector instructions in UB; int32 accumulators take integral alpha/beta and
// only none/relu (the host checks).
//
// BlockEpilogue processes the rows [row_begin, row_end) of one block - on the NPU each AIV of the
// group takes its half (MixSplit::SubBlockRows: ceil(rows/2) / rest) - in chunks that fit the UB.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tessera/gemm/gemm_coord.h"
#include "tessera/kernel/kernel.h"

namespace tessera::gemm::epilogue {

enum class Activation : uint32_t { kNone = 0, kRelu = 1, kGelu = 2, kSilu = 3, kLeakyRelu = 4 };

// How the residual X maps onto the [M, N] output.
enum class Broadcast : uint32_t {
  kNone = 0,    // no X
  kFull = 1,    // [M, N] with row pitch ldx (per batch: x_batch_stride)
  kRow = 2,     // [N]: one row for every output row
  kColumn = 3,  // [M, 1]: one value per output row
  kScalar = 4,  // one value
};

struct EpilogueParams {
  float alpha = 1.0f;
  float beta = 1.0f;
  Activation act = Activation::kNone;
  float negative_slope = 0.01f;
  const void* bias = nullptr;  // ElementBias[N], or null
  const void* x = nullptr;     // ElementX, laid out per x_mode
  Broadcast x_mode = Broadcast::kNone;
  uint64_t ldx = 0;
  uint64_t x_batch_stride = 0;  // elements between batches of a kFull / kColumn X (0: shared)
};

template <class ElementAcc_, class ElementD_, class ElementBias_ = ElementD_,
          class ElementX_ = ElementD_>
class BlockEpilogue {
 public:
  using ElementAcc = ElementAcc_;
  using ElementD = ElementD_;
  using ElementBias = ElementBias_;
  using ElementX = ElementX_;
  using Params = EpilogueParams;
  static_assert(std::is_same_v<ElementAcc, float> || std::is_same_v<ElementAcc, int32_t>,
                "BlockEpilogue: the accumulator is float or int32_t");

  // UB bytes per row of `cols` columns (row pitch rounded to 16 elements so every buffer's rows
  // start 32-byte aligned): the accumulator chunk, a converted copy of X, X itself, D.
  static constexpr uint64_t RowBytes(uint32_t cols) {
    const uint64_t pitch = RoundUp(cols, 16);
    return pitch * (2 * sizeof(ElementAcc) + sizeof(ElementX) + sizeof(ElementD));
  }
  // UB bytes besides the chunk: the bias row as loaded and converted.
  static constexpr uint64_t FixedBytes(uint32_t cols) {
    return uint64_t{RoundUp(cols, 16)} * (sizeof(ElementAcc) + sizeof(ElementBias)) + 64;
  }
  // Rows per chunk for blocks of up to `cols` columns in `ub_bytes` of UB (0: does not fit).
  static constexpr uint32_t ChunkRows(uint32_t cols, uint64_t ub_bytes) {
    const uint64_t fixed = FixedBytes(cols);
    if (ub_bytes <= fixed) return 0;
    return static_cast<uint32_t>(std::min<uint64_t>((ub_bytes - fixed) / RowBytes(cols), 256));
  }

  // Takes its UB buffers from `pipe` for blocks of up to `max_cols` columns, `chunk_rows` rows at a
  // time (ChunkRows of the profile's UB, computed on the host).
  BlockEpilogue(::tessera::kernel::TPipe& pipe, uint32_t max_cols, uint32_t chunk_rows)
      : pitch_(RoundUp(max_cols, 16)), chunk_(chunk_rows) {
    const uint32_t n = pitch_ * chunk_;
    pipe.InitBuffer(acc_buf_, n * sizeof(ElementAcc));
    pipe.InitBuffer(tmp_buf_, n * sizeof(ElementAcc));
    pipe.InitBuffer(x_buf_, n * sizeof(ElementX));
    pipe.InitBuffer(d_buf_, n * sizeof(ElementD));
    pipe.InitBuffer(bias_acc_buf_, pitch_ * sizeof(ElementAcc));
    pipe.InitBuffer(bias_buf_, pitch_ * sizeof(ElementBias));
  }

  // Rows [row_begin, row_end) of the block whose C sits at `c` (row pitch ldw) and whose D goes to
  // `d` (row pitch ldd); the block starts at output row m0 and column n0 of batch `batch` and has
  // `cols` columns.
  void operator()(const Params& p, const ::tessera::kernel::GlobalTensor<ElementAcc>& c,
                  uint64_t ldw, const ::tessera::kernel::GlobalTensor<ElementD>& d, uint64_t ldd,
                  uint32_t row_begin, uint32_t row_end, uint32_t cols, uint64_t m0, uint64_t n0,
                  uint64_t batch) {
    namespace k = ::tessera::kernel;
    if (row_begin >= row_end || cols == 0) return;
    const uint32_t pitch = RoundUp(cols, 16);
    const auto acc = acc_buf_.template Get<ElementAcc>();
    const auto tmp = tmp_buf_.template Get<ElementAcc>();
    const auto bias = bias_acc_buf_.template Get<ElementAcc>();
    if (p.bias != nullptr) {
      k::GlobalTensor<ElementBias> gb;
      gb.SetGlobalBuffer(const_cast<ElementBias*>(static_cast<const ElementBias*>(p.bias)) + n0,
                         cols);
      const auto raw = bias_buf_.template Get<ElementBias>();
      LoadRows(raw, gb, 1, cols, cols, pitch);
      ToAcc(bias, raw, pitch);
    }
    if (p.x_mode == Broadcast::kRow) {
      k::GlobalTensor<ElementX> gx;
      gx.SetGlobalBuffer(const_cast<ElementX*>(static_cast<const ElementX*>(p.x)) + n0, cols);
      const auto raw = x_buf_.template Get<ElementX>();
      // beta * X is one more row to add to every output row: fold it into the bias row (tmp is
      // only scratch here; the chunks below reuse it).
      LoadRows(raw, gx, 1, cols, cols, pitch);
      const auto row = tmp[0];
      ToAcc(row, raw, pitch);
      k::Muls(row, row, Scalar(p.beta), static_cast<int32_t>(pitch));
      if (p.bias != nullptr) {
        k::Add(bias, bias, row, static_cast<int32_t>(pitch));
      } else {
        k::DataCopy(bias, row, pitch);
      }
    }
    const bool row_add = p.bias != nullptr || p.x_mode == Broadcast::kRow;
    for (uint32_t r0 = row_begin; r0 < row_end; r0 += chunk_) {
      const uint32_t rows = std::min(chunk_, row_end - r0);
      const auto count = static_cast<int32_t>(rows * pitch);
      LoadRows(acc, c[uint64_t{r0} * ldw], rows, cols, ldw, pitch);
      if (p.alpha != 1.0f) k::Muls(acc, acc, Scalar(p.alpha), count);
      if (p.x_mode == Broadcast::kFull) {
        k::GlobalTensor<ElementX> gx;
        gx.SetGlobalBuffer(const_cast<ElementX*>(static_cast<const ElementX*>(p.x)) +
                           batch * p.x_batch_stride + (m0 + r0) * p.ldx + n0);
        const auto raw = x_buf_.template Get<ElementX>();
        LoadRows(raw, gx, rows, cols, p.ldx, pitch);
        ToAcc(tmp, raw, rows * pitch);
        if (p.beta != 1.0f) k::Muls(tmp, tmp, Scalar(p.beta), count);
        k::Add(acc, acc, tmp, count);
      } else if (p.x_mode == Broadcast::kColumn || p.x_mode == Broadcast::kScalar) {
        const auto* x = static_cast<const ElementX*>(p.x);
        for (uint32_t r = 0; r < rows; ++r) {
          const uint64_t at =
              p.x_mode == Broadcast::kScalar ? 0 : batch * p.x_batch_stride + m0 + r0 + r;
          const ElementAcc v = ScaledX(x[at], p.beta);
          k::Adds(acc[r * pitch], acc[r * pitch], v, static_cast<int32_t>(pitch));
        }
      }
      if (row_add) {
        for (uint32_t r = 0; r < rows; ++r)
          k::Add(acc[r * pitch], acc[r * pitch], bias, static_cast<int32_t>(pitch));
      }
      Activate(p, acc, count);
      StoreRows(d[uint64_t{r0} * ldd], acc, rows, cols, ldd, pitch);
    }
  }

 private:
  static ElementAcc Scalar(float v) {
    if constexpr (std::is_same_v<ElementAcc, float>) {
      return v;
    } else {
      return static_cast<ElementAcc>(v);
    }
  }
  static ElementAcc ScaledX(ElementX x, float beta) {
    if constexpr (std::is_same_v<ElementAcc, float>) {
      return static_cast<float>(x) * beta;
    } else {
      return static_cast<ElementAcc>(x) * static_cast<ElementAcc>(beta);
    }
  }

  // `rows` rows of `cols` elements (GM pitch ld) into UB rows `pitch` elements apart.
  template <class T>
  static void LoadRows(const ::tessera::kernel::LocalTensor<T>& dst,
                       const ::tessera::kernel::GlobalTensor<T>& src, uint32_t rows, uint32_t cols,
                       uint64_t ld, uint32_t pitch) {
    namespace k = ::tessera::kernel;
    const uint64_t row_bytes = uint64_t{cols} * sizeof(T);
    const uint64_t ub_blocks = (row_bytes + 31) / 32;
    const uint64_t gap = uint64_t{pitch} * sizeof(T) / 32 - ub_blocks;
    if (ld - cols <= UINT32_MAX / sizeof(T) && rows <= UINT16_MAX) {
      k::DataCopyPad(
          dst, src,
          k::DataCopyExtParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(row_bytes),
                               static_cast<uint32_t>((ld - cols) * sizeof(T)),
                               static_cast<uint32_t>(gap), 0},
          k::DataCopyPadExtParams<T>{false, 0, 0, T{}});
      return;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      k::DataCopyPad(dst[r * pitch], src[r * ld],
                     k::DataCopyExtParams{1, static_cast<uint32_t>(row_bytes), 0, 0, 0},
                     k::DataCopyPadExtParams<T>{false, 0, 0, T{}});
    }
  }

  // D = acc rounded to ElementD, rows `pitch` apart in UB, to GM rows of pitch ld.
  void StoreRows(const ::tessera::kernel::GlobalTensor<ElementD>& dst,
                 const ::tessera::kernel::LocalTensor<ElementAcc>& acc, uint32_t rows,
                 uint32_t cols, uint64_t ld, uint32_t pitch) {
    namespace k = ::tessera::kernel;
    k::LocalTensor<ElementD> out;
    if constexpr (std::is_same_v<ElementD, ElementAcc>) {
      out = acc;
    } else {
      out = d_buf_.template Get<ElementD>();
      k::Cast(out, acc, k::RoundMode::CAST_RINT, rows * pitch);
    }
    const uint64_t row_bytes = uint64_t{cols} * sizeof(ElementD);
    const uint64_t ub_blocks = (row_bytes + 31) / 32;
    const uint64_t gap = uint64_t{pitch} * sizeof(ElementD) / 32 - ub_blocks;
    if ((ld - cols) * sizeof(ElementD) <= UINT32_MAX) {
      k::DataCopyPad(
          dst, out,
          k::DataCopyExtParams{static_cast<uint16_t>(rows), static_cast<uint32_t>(row_bytes),
                               static_cast<uint32_t>(gap),
                               static_cast<uint32_t>((ld - cols) * sizeof(ElementD)), 0});
      return;
    }
    for (uint32_t r = 0; r < rows; ++r) {
      k::DataCopyPad(dst[r * ld], out[r * pitch],
                     k::DataCopyExtParams{1, static_cast<uint32_t>(row_bytes), 0, 0, 0});
    }
  }

  // Converts `count` loaded elements to the accumulator type.
  template <class T>
  static void ToAcc(const ::tessera::kernel::LocalTensor<ElementAcc>& dst,
                    const ::tessera::kernel::LocalTensor<T>& src, uint32_t count) {
    namespace k = ::tessera::kernel;
    if constexpr (std::is_same_v<T, ElementAcc>) {
      k::DataCopy(dst, src, count);
    } else {
      k::Cast(dst, src, k::RoundMode::CAST_NONE, count);
    }
  }

  static void Activate(const Params& p, const ::tessera::kernel::LocalTensor<ElementAcc>& x,
                       int32_t count) {
    namespace k = ::tessera::kernel;
    switch (p.act) {
      case Activation::kNone:
        return;
      case Activation::kRelu:
        k::Relu(x, x, count);
        return;
      default:
        if constexpr (std::is_same_v<ElementAcc, float>) {
          if (p.act == Activation::kGelu) k::Gelu(x, x, count);
          if (p.act == Activation::kSilu) k::Silu(x, x, count);
          if (p.act == Activation::kLeakyRelu) k::LeakyRelu(x, x, p.negative_slope, count);
        }
        return;
    }
  }

  uint32_t pitch_;
  uint32_t chunk_;
  ::tessera::kernel::TBuf<::tessera::kernel::TPosition::VECCALC> acc_buf_, tmp_buf_, x_buf_, d_buf_,
      bias_acc_buf_, bias_buf_;
};

}  // namespace tessera::gemm::epilogue
