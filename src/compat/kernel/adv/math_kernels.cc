// Highway implementations of the advanced math and activation APIs (compat/kernel/adv): the fp32
// math is tessera's one library (tessera/kernel/detail/math-inl.h), the loop shape and the exact
// half/bfloat16 conversions those of the vector instructions (src/kernel/vector/vector-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "adv/math_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tessera/compat/kernel/adv/detail/math_dispatch.h"
#include "vector-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tessera::compat::adv {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace km = ::tessera::kernel::math::HWY_NAMESPACE;
namespace kv = ::tessera::kernel::vec::HWY_NAMESPACE;
using kv::DF;
using kv::VF;

// Runs the fp32 body fn(out, in[0..k), m) over n elements of type t: directly for fp32, else in
// chunks widened onto the stack (nullptr inputs stay nullptr) and narrowed once.
template <size_t K, class Fn>
void Chunked(DType t, void* dst, const void* const (&in)[K], size_t n, const Fn& fn) {
  if (t == DType::kF32) {
    const float* f[K];
    for (size_t k = 0; k < K; ++k)
      f[k] = static_cast<const float*>(in[k]);
    fn(static_cast<float*>(dst), f, n);
    return;
  }
  HWY_ALIGN float buf[K][kv::kChunk];
  auto* d16 = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; i += kv::kChunk) {
    const size_t m = std::min(kv::kChunk, n - i);
    const float* f[K];
    for (size_t k = 0; k < K; ++k) {
      if (in[k] == nullptr) {
        f[k] = nullptr;
        continue;
      }
      kv::Widen16(t, static_cast<const uint16_t*>(in[k]) + i, buf[k], m);
      f[k] = buf[k];
    }
    HWY_ALIGN float out[kv::kChunk];
    fn(out, f, m);
    kv::Narrow16(t, out, d16 + i, m);
  }
}

void UnaryImpl(UnaryFn fn, DType t, void* dst, const void* src, size_t n, float param) {
  const void* const in[1] = {src};
  Chunked(t, dst, in, n, [fn, param](float* o, const float* const* x, size_t m) {
    const DF d;
    const VF p = hn::Set(d, param);
    switch (fn) {
      case UnaryFn::kAcosh:
        return kv::Map1(d, o, x[0], m, [](DF dd, VF v) { return km::Acosh(dd, v); });
      case UnaryFn::kErf:
        return kv::Map1(d, o, x[0], m, [](DF dd, VF v) { return km::Erf(dd, v); });
      case UnaryFn::kFrac:
        return kv::Map1(d, o, x[0], m, [](DF dd, VF v) { return km::Frac(dd, v); });
      case UnaryFn::kCeil:
        return kv::Map1(d, o, x[0], m, [](DF, VF v) { return hn::Ceil(v); });
      case UnaryFn::kFloor:
        return kv::Map1(d, o, x[0], m, [](DF, VF v) { return hn::Floor(v); });
      case UnaryFn::kRint:
        return kv::Map1(d, o, x[0], m, [](DF, VF v) { return hn::Round(v); });
      case UnaryFn::kTrunc:
        return kv::Map1(d, o, x[0], m, [](DF, VF v) { return hn::Trunc(v); });
      case UnaryFn::kLog2:
        return kv::Map1(d, o, x[0], m, [](DF dd, VF v) {
          return hn::Mul(km::Ln(dd, v), hn::Set(dd, 1.44269504088896341f));
        });
      case UnaryFn::kLog10:
        return kv::Map1(d, o, x[0], m, [](DF dd, VF v) {
          return hn::Mul(km::Ln(dd, v), hn::Set(dd, 0.434294481903251828f));
        });
      case UnaryFn::kSwish:
        return kv::Map1(d, o, x[0], m,
                        [p](DF dd, VF v) { return hn::Mul(v, km::Sigmoid(dd, hn::Mul(p, v))); });
    }
  });
}

template <class Body>
void BinaryLoop(float* o, const float* a, const float* b, size_t m, float as, float bs,
                const Body& body) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF va_s = hn::Set(d, as);
  const VF vb_s = hn::Set(d, bs);
  size_t i = 0;
  for (; i + N <= m; i += N) {
    const VF va = a != nullptr ? hn::LoadU(d, a + i) : va_s;
    const VF vb = b != nullptr ? hn::LoadU(d, b + i) : vb_s;
    hn::StoreU(body(d, va, vb), d, o + i);
  }
  if (i == m) return;
  HWY_ALIGN float ta[kv::kMaxLanes32] = {};
  HWY_ALIGN float tb[kv::kMaxLanes32] = {};
  for (size_t j = 0; j < m - i; ++j) {
    ta[j] = a != nullptr ? a[i + j] : as;
    tb[j] = b != nullptr ? b[i + j] : bs;
  }
  hn::Store(body(d, hn::Load(d, ta), hn::Load(d, tb)), d, ta);
  for (size_t j = 0; j < m - i; ++j)
    o[i + j] = ta[j];
}

void BinaryImpl(BinaryFn fn, DType t, void* dst, const void* a, const void* b, size_t n, float as,
                float bs, float param) {
  const void* const in[2] = {a, b};
  Chunked(t, dst, in, n, [=](float* o, const float* const* x, size_t m) {
    switch (fn) {
      case BinaryFn::kPow:
        return BinaryLoop(o, x[0], x[1], m, as, bs,
                          [](DF dd, VF u, VF v) { return km::Pow(dd, u, v); });
      case BinaryFn::kFmod:
        return BinaryLoop(o, x[0], x[1], m, as, bs,
                          [](DF dd, VF u, VF v) { return km::Fmod(dd, u, v); });
      case BinaryFn::kGeGlu:
        return BinaryLoop(o, x[0], x[1], m, as, bs,
                          [](DF dd, VF u, VF v) { return hn::Mul(u, km::GeluTanh(dd, v)); });
      case BinaryFn::kSwiGlu:
        return BinaryLoop(o, x[0], x[1], m, as, bs, [param](DF dd, VF u, VF v) {
          return hn::Mul(u, hn::Mul(v, km::Sigmoid(dd, hn::Mul(hn::Set(dd, param), v))));
        });
    }
  });
}

void FmaImpl(DType t, void* dst, const void* a, const void* b, const void* c, size_t n) {
  const void* const in[3] = {a, b, c};
  Chunked(t, dst, in, n, [](float* o, const float* const* x, size_t m) {
    const DF d;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= m; i += N) {
      hn::StoreU(hn::MulAdd(hn::LoadU(d, x[0] + i), hn::LoadU(d, x[1] + i), hn::LoadU(d, x[2] + i)),
                 d, o + i);
    }
    for (; i < m; ++i)
      o[i] = std::fma(x[0][i], x[1][i], x[2][i]);
  });
}

void AxpyImpl(DType dst_t, DType src_t, void* dst, const void* src, float s, size_t n) {
  const DF d;
  const VF vs = hn::Set(d, s);
  if (dst_t == src_t) {
    const void* const in[2] = {dst, src};
    Chunked(dst_t, dst, in, n, [vs, s](float* o, const float* const* x, size_t m) {
      const DF dd;
      const size_t N = hn::Lanes(dd);
      size_t i = 0;
      for (; i + N <= m; i += N)
        hn::StoreU(hn::MulAdd(hn::LoadU(dd, x[1] + i), vs, hn::LoadU(dd, x[0] + i)), dd, o + i);
      for (; i < m; ++i)
        o[i] = std::fma(x[1][i], s, x[0][i]);
    });
    return;
  }
  // fp32 accumulator, 16-bit source.
  auto* o = static_cast<float*>(dst);
  HWY_ALIGN float w[kv::kChunk];
  for (size_t i = 0; i < n; i += kv::kChunk) {
    const size_t m = std::min(kv::kChunk, n - i);
    kv::Widen16(src_t, static_cast<const uint16_t*>(src) + i, w, m);
    const size_t N = hn::Lanes(d);
    size_t j = 0;
    for (; j + N <= m; j += N)
      hn::StoreU(hn::MulAdd(hn::Load(d, w + j), vs, hn::LoadU(d, o + i + j)), d, o + i + j);
    for (; j < m; ++j)
      o[i + j] = std::fma(w[j], s, o[i + j]);
  }
}

void ClampImpl(DType t, void* dst, const void* src, const void* lo, const void* hi, size_t n,
               float ls, float hs, bool use_lo, bool use_hi) {
  const void* const in[3] = {src, lo, hi};
  Chunked(t, dst, in, n, [=](float* o, const float* const* x, size_t m) {
    const DF d;
    const size_t N = hn::Lanes(d);
    const VF vl = hn::Set(d, ls);
    const VF vh = hn::Set(d, hs);
    // Compare-and-select keeps NaN (a compare with NaN is false).
    const auto body = [&](VF v, VF l, VF h) HWY_ATTR {
      if (use_lo) v = hn::IfThenElse(hn::Lt(v, l), l, v);
      if (use_hi) v = hn::IfThenElse(hn::Gt(v, h), h, v);
      return v;
    };
    size_t i = 0;
    for (; i + N <= m; i += N) {
      const VF l = x[1] != nullptr ? hn::LoadU(d, x[1] + i) : vl;
      const VF h = x[2] != nullptr ? hn::LoadU(d, x[2] + i) : vh;
      hn::StoreU(body(hn::LoadU(d, x[0] + i), l, h), d, o + i);
    }
    for (; i < m; ++i) {
      float v = x[0][i];
      const float l = x[1] != nullptr ? x[1][i] : ls;
      const float h = x[2] != nullptr ? x[2][i] : hs;
      if (use_lo && v < l) v = l;
      if (use_hi && v > h) v = h;
      o[i] = v;
    }
  });
}

void BitwiseImpl(BitFn fn, void* dst, const void* a, const void* b, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  auto* o = static_cast<uint8_t*>(dst);
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= bytes; i += N) {
    const auto u = hn::LoadU(d, x + i);
    const auto v = hn::LoadU(d, y + i);
    hn::StoreU(fn == BitFn::kXor ? hn::Xor(u, v) : hn::And(u, v), d, o + i);
  }
  for (; i < bytes; ++i)
    o[i] = static_cast<uint8_t>(fn == BitFn::kXor ? x[i] ^ y[i] : x[i] & y[i]);
}

// Where / LogicalAnd / IsFinite over lanes of U (uint8_t, uint16_t or uint32_t): the byte flags
// widen to (or the results narrow from) U's lanes.
template <class U>
void WhereT(U* o, const uint8_t* c, const U* a, const U* b, U as, U bs, size_t n) {
  const hn::ScalableTag<U> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  const auto va = hn::Set(d, as);
  const auto vb = hn::Set(d, bs);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto flags = hn::LoadU(d8, c + i);
    hn::Vec<decltype(d)> wide;
    if constexpr (sizeof(U) == 1) {
      wide = flags;
    } else {
      wide = hn::PromoteTo(d, flags);
    }
    const auto m = hn::Ne(wide, hn::Zero(d));
    const auto x = a != nullptr ? hn::LoadU(d, a + i) : va;
    const auto y = b != nullptr ? hn::LoadU(d, b + i) : vb;
    hn::StoreU(hn::IfThenElse(m, x, y), d, o + i);
  }
  for (; i < n; ++i)
    o[i] = c[i] != 0 ? (a != nullptr ? a[i] : as) : (b != nullptr ? b[i] : bs);
}

void WhereImpl(size_t elem_bytes, void* dst, const uint8_t* cond, const void* a, const void* b,
               uint32_t a_bits, uint32_t b_bits, size_t n) {
  if (elem_bytes == 4) {
    return WhereT(static_cast<uint32_t*>(dst), cond, static_cast<const uint32_t*>(a),
                  static_cast<const uint32_t*>(b), a_bits, b_bits, n);
  }
  if (elem_bytes == 2) {
    return WhereT(static_cast<uint16_t*>(dst), cond, static_cast<const uint16_t*>(a),
                  static_cast<const uint16_t*>(b), static_cast<uint16_t>(a_bits),
                  static_cast<uint16_t>(b_bits), n);
  }
  WhereT(static_cast<uint8_t*>(dst), cond, static_cast<const uint8_t*>(a),
         static_cast<const uint8_t*>(b), static_cast<uint8_t>(a_bits), static_cast<uint8_t>(b_bits),
         n);
}

// Flags (0 / 1 bytes) from a mask over lanes of U.
template <class D, class M>
HWY_INLINE void StoreFlags(D d, M m, uint8_t* out) {
  using U = hn::TFromD<D>;
  const auto one = hn::IfThenElseZero(m, hn::Set(d, U{1}));
  if constexpr (sizeof(U) == 1) {
    hn::StoreU(one, d, out);
  } else {
    const hn::Rebind<uint8_t, D> d8;
    const hn::RebindToSigned<D> ds;
    hn::StoreU(hn::DemoteTo(d8, hn::BitCast(ds, one)), d8, out);
  }
}

template <class U>
void LogicalAndT(uint8_t* o, const U* a, const U* b, U keep, size_t n) {
  const hn::ScalableTag<U> d;
  const size_t N = hn::Lanes(d);
  const auto vk = hn::Set(d, keep);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::And(hn::LoadU(d, a + i), vk);
    const auto y = hn::And(hn::LoadU(d, b + i), vk);
    StoreFlags(d, hn::And(hn::Ne(x, hn::Zero(d)), hn::Ne(y, hn::Zero(d))), o + i);
  }
  for (; i < n; ++i)
    o[i] = (a[i] & keep) != 0 && (b[i] & keep) != 0 ? 1 : 0;
}

void LogicalAndImpl(size_t elem_bytes, bool ignore_sign, uint8_t* dst, const void* a, const void* b,
                    size_t n) {
  if (elem_bytes == 4) {
    return LogicalAndT(dst, static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b),
                       ignore_sign ? 0x7FFFFFFFu : 0xFFFFFFFFu, n);
  }
  if (elem_bytes == 2) {
    return LogicalAndT(dst, static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b),
                       static_cast<uint16_t>(ignore_sign ? 0x7FFFu : 0xFFFFu), n);
  }
  LogicalAndT(dst, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
              static_cast<uint8_t>(0xFF), n);
}

// isfinite from the exponent bits: all ones means Inf or NaN.
template <class U>
void IsFiniteT(void* dst, bool dst_bytes, const U* src, U exp_mask, U one_bits, size_t n) {
  const hn::ScalableTag<U> d;
  const size_t N = hn::Lanes(d);
  const auto vm = hn::Set(d, exp_mask);
  const auto vone = hn::Set(d, one_bits);
  auto* bytes = static_cast<uint8_t*>(dst);
  auto* same = static_cast<U*>(dst);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto m = hn::Ne(hn::And(hn::LoadU(d, src + i), vm), vm);
    if (dst_bytes) {
      StoreFlags(d, m, bytes + i);
    } else {
      hn::StoreU(hn::IfThenElseZero(m, vone), d, same + i);
    }
  }
  for (; i < n; ++i) {
    const bool finite = (src[i] & exp_mask) != exp_mask;
    if (dst_bytes) {
      bytes[i] = finite ? 1 : 0;
    } else {
      same[i] = finite ? one_bits : U{0};
    }
  }
}

void IsFiniteImpl(DType t, void* dst, bool dst_bytes, const void* src, size_t n) {
  if (t == DType::kF32) {
    return IsFiniteT(dst, dst_bytes, static_cast<const uint32_t*>(src), 0x7F800000u, 0x3F800000u,
                     n);
  }
  const bool is_half = t == DType::kF16;
  IsFiniteT(dst, dst_bytes, static_cast<const uint16_t*>(src),
            static_cast<uint16_t>(is_half ? 0x7C00u : 0x7F80u),
            static_cast<uint16_t>(is_half ? 0x3C00u : 0x3F80u), n);
}

// ---- Row statistics. Rows are widened to fp32 one at a time (cols may exceed a chunk, so the
// row buffer is on the heap only when it does not fit the stack one).

class RowBuffer {
 public:
  explicit RowBuffer(size_t cols) : heap_(cols > kStack ? new float[cols] : nullptr) {}
  ~RowBuffer() { delete[] heap_; }
  RowBuffer(const RowBuffer&) = delete;
  RowBuffer& operator=(const RowBuffer&) = delete;
  float* get() { return heap_ != nullptr ? heap_ : stack_; }

 private:
  static constexpr size_t kStack = 2048;
  HWY_ALIGN float stack_[kStack];
  float* heap_;
};

void LoadRow(DType t, const void* src, size_t offset, size_t cols, float* out) {
  if (t == DType::kF32) {
    std::copy_n(static_cast<const float*>(src) + offset, cols, out);
  } else {
    kv::Widen16(t, static_cast<const uint16_t*>(src) + offset, out, cols);
  }
}
void StoreRow(DType t, void* dst, size_t offset, size_t cols, const float* in) {
  if (t == DType::kF32) {
    std::copy_n(in, cols, static_cast<float*>(dst) + offset);
  } else {
    kv::Narrow16(t, in, static_cast<uint16_t*>(dst) + offset, cols);
  }
}

void CumSumImpl(DType t, void* dst, const void* src, size_t rows, size_t cols, bool last_axis) {
  std::vector<float> x(cols), acc(cols, 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, src, r * cols, cols, x.data());
    if (last_axis) {
      // A prefix scan along the row: each step depends on the last, in the vendor's order.
      float run = 0.0f;
      for (size_t c = 0; c < cols; ++c) {
        run += x[c];
        acc[c] = run;
      }
    } else {
      const DF d;
      const size_t N = hn::Lanes(d);
      size_t c = 0;
      for (; c + N <= cols; c += N)
        hn::StoreU(hn::Add(hn::LoadU(d, acc.data() + c), hn::LoadU(d, x.data() + c)), d,
                   acc.data() + c);
      for (; c < cols; ++c)
        acc[c] += x[c];
    }
    StoreRow(t, dst, r * cols, cols, acc.data());  // fp32 running sums, each rounded once
  }
}

float RowMax(const float* x, size_t n) {
  const DF d;
  const size_t N = hn::Lanes(d);
  VF m = hn::Set(d, -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + N <= n; i += N)
    m = hn::Max(m, hn::LoadU(d, x + i));
  float r = hn::GetLane(hn::MaxOfLanes(d, m));
  for (; i < n; ++i)
    r = std::max(r, x[i]);
  return r;
}

// x[i] = e^(x[i] - shift) (km::Exp), returns the sum in fp32 over lane partial sums.
float ExpShiftSum(float* x, size_t n, float shift) {
  const DF d;
  const size_t N = hn::Lanes(d);
  const VF vs = hn::Set(d, shift);
  VF acc = hn::Zero(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const VF e = km::Exp(d, hn::Sub(hn::LoadU(d, x + i), vs));
    hn::StoreU(e, d, x + i);
    acc = hn::Add(acc, e);
  }
  float s = hn::GetLane(hn::SumOfLanes(d, acc));
  if (i < n) {
    HWY_ALIGN float t[kv::kMaxLanes32] = {};
    const size_t r = n - i;
    for (size_t j = 0; j < r; ++j)
      t[j] = x[i + j] - shift;
    hn::Store(km::Exp(d, hn::Load(d, t)), d, t);
    for (size_t j = 0; j < r; ++j) {
      x[i + j] = t[j];
      s += t[j];
    }
  }
  return s;
}

template <class Fn>
void MapRow(float* x, size_t n, const Fn& fn) {
  kv::Map1(DF(), x, x, n, fn);
}

void SoftMaxRowsImpl(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid,
                     float* max, float* sum, bool log10) {
  RowBuffer buf(valid);
  float* x = buf.get();
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, src, r * cols, valid, x);
    const float m = RowMax(x, valid);
    const float s = ExpShiftSum(x, valid, m);
    const VF inv = hn::Set(DF(), 1.0f / s);
    if (log10) {
      MapRow(x, valid, [inv](DF dd, VF v) {
        return hn::Mul(km::Ln(dd, hn::Mul(v, inv)), hn::Set(dd, 0.434294481903251828f));
      });
    } else {
      MapRow(x, valid, [inv](DF, VF v) { return hn::Mul(v, inv); });
    }
    StoreRow(t, dst, r * cols, valid, x);
    if (max != nullptr) max[r] = m;
    if (sum != nullptr) sum[r] = s;
  }
}

void SimpleSoftMaxRowsImpl(DType t, void* dst, const void* src, size_t rows, size_t cols,
                           size_t valid, const float* max, const float* sum) {
  RowBuffer buf(valid);
  float* x = buf.get();
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, src, r * cols, valid, x);
    const VF m = hn::Set(DF(), max[r]);
    const VF inv = hn::Set(DF(), 1.0f / sum[r]);
    MapRow(x, valid, [m, inv](DF dd, VF v) { return hn::Mul(km::Exp(dd, hn::Sub(v, m)), inv); });
    StoreRow(t, dst, r * cols, valid, x);
  }
}

void FlashRowsImpl(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid,
                   const float* in_max, const float* in_sum, float* max, float* sum,
                   float* exp_max) {
  RowBuffer buf(valid);
  float* x = buf.get();
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, src, r * cols, valid, x);
    float m = RowMax(x, valid);
    if (in_max != nullptr) m = std::max(m, in_max[r]);
    float s = ExpShiftSum(x, valid, m);
    if (in_max != nullptr) {
      const float e = std::exp(in_max[r] - m);
      s += e * in_sum[r];
      if (exp_max != nullptr) exp_max[r] = e;
    }
    if (dst != nullptr) StoreRow(t, dst, r * cols, valid, x);
    max[r] = m;
    sum[r] = s;
  }
}

void FlashV3RowsImpl(DType t, void* dst, const void* src, size_t rows, size_t cols,
                     uint32_t loop_cnt, float alpha, const float* in_mean, const float* in_max,
                     const float* in_sum, float* mean, float* max, float* sum, float* exp_max) {
  constexpr size_t kSplits = 8;  // the vendor's splitMeanCnt, one per 32-byte block of fp32
  RowBuffer buf(cols);
  float* x = buf.get();
  const float scalar = alpha / (1.0f - alpha);
  const size_t base_k = cols / kSplits;
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, src, r * cols, cols, x);
    // The vendor's reduction: the first 512 elements in blocks of 8 give 64 partial sums, every
    // later repeat of 64 adds element-wise onto them, and split j sums partials 8j..8j+7.
    float partial[64];
    for (size_t q = 0; q < 64; ++q) {
      float s = 0.f;
      for (size_t k = 0; k < 8; ++k)
        s += x[8 * q + k];
      partial[q] = s;
    }
    for (size_t c = 512; c < cols; c += 64)
      for (size_t q = 0; q < 64; ++q)
        partial[q] += x[c + q];
    float local[kSplits];
    float total = 0.f;
    for (size_t j = 0; j < kSplits; ++j) {
      float s = 0.f;
      for (size_t k = 0; k < 8; ++k)
        s += partial[8 * j + k];
      local[j] = s * (1.0f / static_cast<float>(base_k));
      total += local[j];
    }
    const float row_mean = total * (1.0f / kSplits);
    for (size_t j = 0; j < kSplits; ++j) {
      const float shift = (row_mean - local[j]) * scalar;
      for (size_t i = j * base_k; i < (j + 1) * base_k; ++i)
        x[i] -= shift;
    }
    const float row_max = RowMax(x, cols);
    float a = row_mean;
    if (in_mean != nullptr) {
      a = (in_mean[r] * (static_cast<float>(loop_cnt) - 1.0f) + row_mean) *
          (1.0f / static_cast<float>(loop_cnt));
    }
    const float shift_curr = (row_mean - a) * scalar;
    float m = row_max + shift_curr;
    float e = 0.f;
    if (in_mean != nullptr) {
      const float shift_prev = (in_mean[r] - a) * scalar;
      m = std::max(m, in_max[r] + shift_prev);
      e = std::exp(in_max[r] - m + shift_prev);
    }
    float s = ExpShiftSum(x, cols, m - shift_curr);
    if (in_mean != nullptr) {
      s += e * in_sum[r];
      exp_max[r] = e;
    }
    StoreRow(t, dst, r * cols, cols, x);
    mean[r] = a;
    max[r] = m;
    sum[r] = s;
  }
}

void SoftMaxGradRowsImpl(DType t, void* dst, const void* grad, const void* y, size_t rows,
                         size_t cols, size_t valid, float* front) {
  RowBuffer gb(valid);
  RowBuffer yb(valid);
  float* g = gb.get();
  float* p = yb.get();
  const DF d;
  const size_t N = hn::Lanes(d);
  for (size_t r = 0; r < rows; ++r) {
    LoadRow(t, grad, r * cols, valid, g);
    LoadRow(t, y, r * cols, valid, p);
    VF acc = hn::Zero(d);
    size_t i = 0;
    for (; i + N <= valid; i += N)
      acc = hn::MulAdd(hn::LoadU(d, g + i), hn::LoadU(d, p + i), acc);
    float s = hn::GetLane(hn::SumOfLanes(d, acc));
    for (; i < valid; ++i)
      s += g[i] * p[i];
    front[r] = s;
    if (dst == nullptr) continue;
    const VF vs = hn::Set(d, s);
    i = 0;
    for (; i + N <= valid; i += N) {
      hn::StoreU(hn::Mul(hn::Sub(hn::LoadU(d, g + i), vs), hn::LoadU(d, p + i)), d, g + i);
    }
    for (; i < valid; ++i)
      g[i] = (g[i] - s) * p[i];
    StoreRow(t, dst, r * cols, valid, g);
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tessera::compat::adv
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::compat::adv {

HWY_EXPORT(UnaryImpl);
HWY_EXPORT(BinaryImpl);
HWY_EXPORT(FmaImpl);
HWY_EXPORT(AxpyImpl);
HWY_EXPORT(ClampImpl);
HWY_EXPORT(BitwiseImpl);
HWY_EXPORT(WhereImpl);
HWY_EXPORT(IsFiniteImpl);
HWY_EXPORT(LogicalAndImpl);
HWY_EXPORT(CumSumImpl);
HWY_EXPORT(SoftMaxRowsImpl);
HWY_EXPORT(SimpleSoftMaxRowsImpl);
HWY_EXPORT(FlashRowsImpl);
HWY_EXPORT(FlashV3RowsImpl);
HWY_EXPORT(SoftMaxGradRowsImpl);

void Unary(UnaryFn fn, DType t, void* dst, const void* src, size_t n, float param) {
  HWY_DYNAMIC_DISPATCH(UnaryImpl)(fn, t, dst, src, n, param);
}
void Binary(BinaryFn fn, DType t, void* dst, const void* a, const void* b, size_t n, float a_scalar,
            float b_scalar, float param) {
  HWY_DYNAMIC_DISPATCH(BinaryImpl)(fn, t, dst, a, b, n, a_scalar, b_scalar, param);
}
void Fma(DType t, void* dst, const void* a, const void* b, const void* c, size_t n) {
  HWY_DYNAMIC_DISPATCH(FmaImpl)(t, dst, a, b, c, n);
}
void Axpy(DType dst_t, DType src_t, void* dst, const void* src, float s, size_t n) {
  HWY_DYNAMIC_DISPATCH(AxpyImpl)(dst_t, src_t, dst, src, s, n);
}
void Clamp(DType t, void* dst, const void* src, const void* lo, const void* hi, size_t n,
           float lo_scalar, float hi_scalar, bool use_lo, bool use_hi) {
  HWY_DYNAMIC_DISPATCH(ClampImpl)(t, dst, src, lo, hi, n, lo_scalar, hi_scalar, use_lo, use_hi);
}
void Bitwise(BitFn fn, void* dst, const void* a, const void* b, size_t bytes) {
  HWY_DYNAMIC_DISPATCH(BitwiseImpl)(fn, dst, a, b, bytes);
}
void Where(size_t elem_bytes, void* dst, const uint8_t* cond, const void* a, const void* b,
           uint32_t a_bits, uint32_t b_bits, size_t n) {
  HWY_DYNAMIC_DISPATCH(WhereImpl)(elem_bytes, dst, cond, a, b, a_bits, b_bits, n);
}
void IsFinite(DType t, void* dst, bool dst_bytes, const void* src, size_t n) {
  HWY_DYNAMIC_DISPATCH(IsFiniteImpl)(t, dst, dst_bytes, src, n);
}
void LogicalAnd(size_t elem_bytes, bool ignore_sign, uint8_t* dst, const void* a, const void* b,
                size_t n) {
  HWY_DYNAMIC_DISPATCH(LogicalAndImpl)(elem_bytes, ignore_sign, dst, a, b, n);
}
void CumSum(DType t, void* dst, const void* src, size_t rows, size_t cols, bool last_axis) {
  HWY_DYNAMIC_DISPATCH(CumSumImpl)(t, dst, src, rows, cols, last_axis);
}
void SoftMaxRows(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid_cols,
                 float* max, float* sum, bool log10) {
  HWY_DYNAMIC_DISPATCH(SoftMaxRowsImpl)(t, dst, src, rows, cols, valid_cols, max, sum, log10);
}
void SimpleSoftMaxRows(DType t, void* dst, const void* src, size_t rows, size_t cols,
                       size_t valid_cols, const float* max, const float* sum) {
  HWY_DYNAMIC_DISPATCH(SimpleSoftMaxRowsImpl)(t, dst, src, rows, cols, valid_cols, max, sum);
}
void FlashRows(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid_cols,
               const float* in_max, const float* in_sum, float* max, float* sum, float* exp_max) {
  HWY_DYNAMIC_DISPATCH(FlashRowsImpl)
  (t, dst, src, rows, cols, valid_cols, in_max, in_sum, max, sum, exp_max);
}
void FlashV3Rows(DType t, void* dst, const void* src, size_t rows, size_t cols, uint32_t loop_cnt,
                 float alpha, const float* in_mean, const float* in_max, const float* in_sum,
                 float* mean, float* max, float* sum, float* exp_max) {
  HWY_DYNAMIC_DISPATCH(FlashV3RowsImpl)
  (t, dst, src, rows, cols, loop_cnt, alpha, in_mean, in_max, in_sum, mean, max, sum, exp_max);
}
void SoftMaxGradRows(DType t, void* dst, const void* grad, const void* y, size_t rows, size_t cols,
                     size_t valid_cols, float* front) {
  HWY_DYNAMIC_DISPATCH(SoftMaxGradRowsImpl)(t, dst, grad, y, rows, cols, valid_cols, front);
}

}  // namespace tessera::compat::adv
#endif  // HWY_ONCE
