// Reductions (whole tensor and per row) and row softmax. Sums use four vector accumulators of
// fp32 lanes (so 4 x lanes partial sums, combined pairwise at the end), never one serial
// accumulator; half and bfloat16 are widened chunk by chunk and the chunk results combined.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "reduce.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include "vector-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::vec {
namespace HWY_NAMESPACE {
namespace {

template <class T>
T SumT(const T* p, size_t n) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, p + i));
    s1 = hn::Add(s1, hn::LoadU(d, p + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, p + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, p + i + 3 * N));
  }
  for (; i + N <= n; i += N)
    s0 = hn::Add(s0, hn::LoadU(d, p + i));
  if (i < n) {
    HWY_ALIGN T buf[kMaxLanes32] = {};
    std::memcpy(buf, p + i, (n - i) * sizeof(T));
    s1 = hn::Add(s1, hn::Load(d, buf));
  }
  // The last step is a scalar loop rather than SumOfLanes: for unsigned lanes it must wrap, and
  // the x86 horizontal-add intrinsics do their arithmetic in signed int.
  HWY_ALIGN T lanes[kMaxLanes32];
  hn::Store(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)), d, lanes);
  T sum = T(0);
  for (size_t k = 0; k < N; ++k)
    sum += lanes[k];
  return sum;
}

// Max (kMax) or min of n >= 1 elements. NaN handling follows the target's Max/Min.
template <class T>
T ExtremumT(ReduceOp op, const T* p, size_t n) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  const bool max = op == ReduceOp::kMax;
  const auto pick = [max](V a, V b) { return max ? hn::Max(a, b) : hn::Min(a, b); };
  V acc = hn::Set(d, p[0]);
  size_t i = 0;
  for (; i + N <= n; i += N)
    acc = pick(acc, hn::LoadU(d, p + i));
  if (i < n) {
    HWY_ALIGN T buf[kMaxLanes32];
    std::fill_n(buf, N, p[i]);  // padding with a tail element cannot change the result
    std::memcpy(buf, p + i, (n - i) * sizeof(T));
    acc = pick(acc, hn::Load(d, buf));
  }
  return hn::GetLane(max ? hn::MaxOfLanes(d, acc) : hn::MinOfLanes(d, acc));
}

// First index holding `value`, or n if none does (NaN).
template <class T>
size_t IndexOfT(const T* p, size_t n, T value) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  const auto v = hn::Set(d, value);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const intptr_t found = hn::FindFirstTrue(d, hn::Eq(hn::LoadU(d, p + i), v));
    if (found >= 0) return i + static_cast<size_t>(found);
  }
  for (; i < n; ++i) {
    if (p[i] == value) return i;
  }
  return n;
}

struct Result {
  float value;
  size_t index;
};

// Reduces n float values; `index` is meaningful for max/min only.
template <class T>
Result ReduceRow(ReduceOp op, const T* p, size_t n, bool with_index) {
  if (op == ReduceOp::kSum) return {static_cast<float>(SumT(p, n)), 0};
  const T v = ExtremumT(op, p, n);
  const size_t index = with_index ? IndexOfT(p, n, v) : 0;
  return {static_cast<float>(v), index < n ? index : 0};
}

Result ReduceRow16(ReduceOp op, DType t, const uint16_t* p, size_t n, bool with_index) {
  HWY_ALIGN float buf[kChunk];
  Result total{0.0f, 0};
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, p + i, buf, m);
    const Result r = ReduceRow(op, buf, m, with_index);
    if (op == ReduceOp::kSum) {
      total.value += r.value;
    } else if (i == 0 || (op == ReduceOp::kMax ? r.value > total.value : r.value < total.value)) {
      total = {r.value, i + r.index};  // strict: ties keep the first index
    }
  }
  return total;
}

void ReduceImpl(ReduceOp op, DType t, void* dst, size_t dst_step, const void* src, size_t rows,
                size_t cols, bool with_index) {
  for (size_t r = 0; r < rows; ++r) {
    const size_t o = r * dst_step;
    if (t == DType::kI32) {
      const auto* p = static_cast<const int32_t*>(src) + r * cols;
      auto* out = static_cast<int32_t*>(dst);
      if (op == ReduceOp::kSum) {
        // Summed as uint32, which wraps modulo 2^32 like every int32 op, without signed overflow.
        out[o] = static_cast<int32_t>(SumT(reinterpret_cast<const uint32_t*>(p), cols));
        continue;
      }
      const int32_t v = ExtremumT(op, p, cols);
      out[o] = v;
      if (with_index) out[o + 1] = static_cast<int32_t>(IndexOfT(p, cols, v));
    } else if (t == DType::kF32) {
      const Result res = ReduceRow(op, static_cast<const float*>(src) + r * cols, cols, with_index);
      auto* out = static_cast<float*>(dst);
      out[o] = res.value;
      if (with_index) out[o + 1] = std::bit_cast<float>(static_cast<uint32_t>(res.index));
    } else {
      const Result res =
          ReduceRow16(op, t, static_cast<const uint16_t*>(src) + r * cols, cols, with_index);
      auto* out = static_cast<uint16_t*>(dst);
      out[o] = t == DType::kF16 ? FloatToHalfBits(res.value) : FloatToBfloat16Bits(res.value);
      if (with_index) out[o + 1] = static_cast<uint16_t>(res.index);
    }
  }
}

// ---- Pair sums: dst[j] = src[2j] + src[2j + 1] (fp32; 16-bit types widened, rounded once).

void PairSumF32(float* dst, const float* src, size_t pairs) {
  size_t j = 0;
#if HWY_TARGET != HWY_SCALAR  // one lane has no even/odd halves to deinterleave
  const DF d;
  const size_t N = hn::Lanes(d);
  for (; j + N <= pairs; j += N) {
    const VF lo = hn::LoadU(d, src + 2 * j);
    const VF hi = hn::LoadU(d, src + 2 * j + N);
    hn::StoreU(hn::Add(hn::ConcatEven(d, hi, lo), hn::ConcatOdd(d, hi, lo)), d, dst + j);
  }
#endif
  for (; j < pairs; ++j)
    dst[j] = src[2 * j] + src[2 * j + 1];
}

void PairSumImpl(DType t, void* dst, const void* src, size_t pairs) {
  if (t == DType::kF32) {
    return PairSumF32(static_cast<float*>(dst), static_cast<const float*>(src), pairs);
  }
  HWY_ALIGN float in[kChunk];
  HWY_ALIGN float out[kChunk / 2];
  const auto* s16 = static_cast<const uint16_t*>(src);
  auto* d16 = static_cast<uint16_t*>(dst);
  for (size_t j = 0; j < pairs; j += kChunk / 2) {
    const size_t m = std::min(kChunk / 2, pairs - j);
    Widen16(t, s16 + 2 * j, in, 2 * m);
    PairSumF32(out, in, m);
    Narrow16(t, out, d16 + j, m);
  }
}

// ---- SoftMax: y = e^(x - max) / sum(e^(x - max)) per row.

void SoftMaxRowF32(float* dst, const float* src, size_t n) {
  const DF d;
  const VF m = hn::Set(d, ExtremumT(ReduceOp::kMax, src, n));
  Map1(d, dst, src, n, [m](DF dd, VF x) { return km::Exp(dd, hn::Sub(x, m)); });
  const VF s = hn::Set(d, SumT(static_cast<const float*>(dst), n));
  Map1(d, dst, dst, n, [s](DF, VF e) { return hn::Div(e, s); });
}

// 16-bit rows: the exponentials are recomputed in the last pass rather than stored, so each
// output is rounded once (from fp32) instead of twice.
void SoftMaxRow16(DType t, uint16_t* dst, const uint16_t* src, size_t n) {
  const DF d;
  HWY_ALIGN float buf[kChunk];
  float max = 0.0f;
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, src + i, buf, m);
    const float chunk_max = ExtremumT(ReduceOp::kMax, static_cast<const float*>(buf), m);
    max = i == 0 ? chunk_max : std::max(max, chunk_max);
  }
  const VF vm = hn::Set(d, max);
  float sum = 0.0f;
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, src + i, buf, m);
    Map1(d, buf, buf, m, [vm](DF dd, VF x) { return km::Exp(dd, hn::Sub(x, vm)); });
    sum += SumT(static_cast<const float*>(buf), m);
  }
  const VF vs = hn::Set(d, sum);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = std::min(kChunk, n - i);
    Widen16(t, src + i, buf, m);
    Map1(d, buf, buf, m,
         [vm, vs](DF dd, VF x) { return km::Div(dd, km::Exp(dd, hn::Sub(x, vm)), vs); });
    Narrow16(t, buf, dst + i, m);
  }
}

void SoftMaxImpl(DType t, void* dst, const void* src, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    if (t == DType::kF32) {
      SoftMaxRowF32(static_cast<float*>(dst) + r * cols, static_cast<const float*>(src) + r * cols,
                    cols);
    } else {
      SoftMaxRow16(t, static_cast<uint16_t*>(dst) + r * cols,
                   static_cast<const uint16_t*>(src) + r * cols, cols);
    }
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::vec
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::kernel::vec {

HWY_EXPORT(ReduceImpl);
HWY_EXPORT(SoftMaxImpl);
HWY_EXPORT(PairSumImpl);

void PairSum(DType t, void* dst, const void* src, size_t pairs) {
  HWY_DYNAMIC_DISPATCH(PairSumImpl)(t, dst, src, pairs);
}

void Reduce(ReduceOp op, DType t, void* dst, size_t dst_step, const void* src, size_t rows,
            size_t cols, bool with_index) {
  HWY_DYNAMIC_DISPATCH(ReduceImpl)(op, t, dst, dst_step, src, rows, cols, with_index);
}
void SoftMax(DType t, void* dst, const void* src, size_t rows, size_t cols) {
  HWY_DYNAMIC_DISPATCH(SoftMaxImpl)(t, dst, src, rows, cols);
}

}  // namespace tessera::kernel::vec
#endif  // HWY_ONCE
