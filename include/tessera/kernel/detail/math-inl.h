// The one SIMD math library of tessera: fp32-lane Exp, Ln, Sigmoid, Tanh, Gelu (tanh and erf
// forms), Silu, Rsqrt, Reciprocal and Div on Highway, and the bfloat16 rounding of fp32 lanes. The
// kernel API's vector instructions (src/kernel/vector) and the elewise engine (src/elewise) both
// call these, so the same function gives bit-identical results through either. Include once per
// Highway target from a file compiled with foreach_target.h (hence the toggle guard instead of
// #pragma once); lane type float, any vector width.
//
// Accuracy: max ulp against a long double reference over every finite fp32 input, measured by
// tessera_math_accuracy and listed in docs/kernel_vector.md ("One math library"). Special values
// (NaN, +-Inf, -0, subnormals, overflow and underflow thresholds) follow the C library functions
// and are stated next to each function.
#if defined(TESSERA_KERNEL_DETAIL_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNEL_DETAIL_MATH_INL_H_
#undef TESSERA_KERNEL_DETAIL_MATH_INL_H_
#else
#define TESSERA_KERNEL_DETAIL_MATH_INL_H_
#endif

#include <hwy/highway.h>

#include <limits>

HWY_BEFORE_NAMESPACE();
namespace tessera::kernel::math {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

namespace impl {

// x86 min/max return their second operand when either is NaN, so clamping with the bound first
// passes NaN through for free; the other targets drop NaN, so it is put back.
template <class V>
HWY_INLINE V KeepNaN(V x, V y) {
#if HWY_ARCH_X86 && HWY_TARGET != HWY_EMU128 && HWY_TARGET != HWY_SCALAR
  (void)x;
  return y;
#else
  return hn::IfThenElse(hn::IsNaN(x), x, y);
#endif
}

template <class D, class V>
HWY_INLINE V ClampKeepNaN(D d, V x, float lo, float hi) {
  return KeepNaN(x, hn::Max(hn::Set(d, lo), hn::Min(hn::Set(d, hi), x)));
}

// num / den for den in [1, 8]. AVX-512: the 14-bit reciprocal estimate, then one correction of
// the quotient from its exact residual (within a hair of correctly rounded, 3 FMA-port ops).
// Narrower targets: the IEEE division, correctly rounded. There the estimate has only 12 bits and
// needs a Newton step (6 ops on the FMA ports), while the divider is a separate unit that runs
// beside the exponential's FMAs: sigmoid 1.34x faster on Zen 1 (2.25 -> 1.68 ns per element).
template <class D, class V>
HWY_INLINE V QuotientNear(D d, V num, V den) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  const V r = hn::ApproximateReciprocal(den);
  const V q = hn::Mul(num, r);
  return hn::MulAdd(hn::NegMulAdd(den, q, num), r, q);
#else
  (void)d;
  return hn::Div(num, den);
#endif
}

// p * 2^n for integral n in [-159, 128], rounded once (subnormal results included, overflow to
// +Inf): vscalefps on AVX-512; elsewhere one exact power-of-two factor when 2^n is a normal float
// in every lane (the usual case, one branch per vector), else two (each exponent within range).
// Both forms round the exact product once, so they agree bit for bit.
template <class D, class V>
HWY_INLINE V MulPow2(D d, V p, V n, hn::Vec<hn::RebindToSigned<D>> ni) {
#if (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && HWY_MAX_BYTES == 64
  if constexpr (sizeof(V) == 64) {
    (void)d;
    (void)ni;
    return V{_mm512_scalef_ps(p.raw, n.raw)};
  }
#endif
  (void)n;
  const hn::RebindToSigned<D> di;
  if (hn::AllTrue(di, hn::Lt(hn::Abs(ni), hn::Set(di, 127)))) {
    return hn::Mul(p, hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(ni, hn::Set(di, 127)))));
  }
  const auto half = hn::ShiftRight<1>(ni);
  const V s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(half, hn::Set(di, 127))));
  const V s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ni, half), hn::Set(di, 127))));
  return hn::Mul(hn::Mul(p, s1), s2);
}

// e^x = p 2^n, p in [0.7, 1.42], as float n and its integer ni.
template <class D>
struct ExpParts {
  hn::Vec<D> p, n;
  hn::Vec<hn::RebindToSigned<D>> ni;
};

// e^(x + lo) for x already clamped to [-110, 88.75]. x = n ln2 + r, |r| <= ln2/2 (plus 0.03),
// with a 9-bit ln2_hi so r_hi = x - n ln2_hi is exact on every target; e^r = 1 + r + r^2 g(r), g a
// degree-4 Chebyshev fit (relative error 8e-9 on e^r). kAccurate sums 1 + r_hi with its rounding
// error carried (Fast2Sum), leaving one rounding (0.6 ulp); the activations take the 5 ops
// cheaper form (0.9 ulp), whose error they damp. kWithLo adds lo (|lo| <= ulp(x)) to the
// argument, for GeluErf's extended-precision arguments near -100.
template <bool kAccurate, bool kWithLo, class D, class V>
HWY_INLINE ExpParts<D> ExpReduce(D d, V x, V lo) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const V t = hn::MulAdd(x, hn::Set(d, 1.44269504088896341f), magic);
  const V n = hn::Sub(t, magic);
  const auto ni = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, magic));
  const V r_hi = hn::NegMulAdd(n, hn::Set(d, 0.693359375f), x);
  V r_lo = hn::Mul(n, hn::Set(d, 2.12194440e-4f));
  if constexpr (kWithLo) r_lo = hn::Add(r_lo, lo);
  const V r = hn::Add(r_hi, r_lo);
  const V r2 = hn::Mul(r, r);
  const V g01 = hn::MulAdd(hn::Set(d, 1.666657478e-01f), r, hn::Set(d, 0.5f));
  const V g23 = hn::MulAdd(hn::Set(d, 8.363518864e-03f), r, hn::Set(d, 4.166655242e-02f));
  const V g4 = hn::Mul(hn::Mul(r2, r2), hn::Set(d, 1.392660779e-03f));
  const V g = hn::MulAdd(r2, g23, hn::Add(g01, g4));
  const V one = hn::Set(d, 1.0f);
  V p;
  if constexpr (kAccurate) {
    const V s = hn::Add(one, r_hi);
    const V s_err = hn::Sub(r_hi, hn::Sub(s, one));
    p = hn::Add(s, hn::MulAdd(r2, g, hn::Add(s_err, r_lo)));
  } else {
    p = hn::Add(hn::MulAdd(r2, g, r), one);
  }
  return {p, n, ni};
}

// e^x for x <= 0 (sigmoid's e^-|x|), as parts: the clamp needs no upper bound, and its lower
// one, -110, leaves |m| e^x below half the least subnormal for |m| <= 128.
template <class D, class V>
HWY_INLINE ExpParts<D> ExpNonPositive(D d, V x) {
  const V c = KeepNaN(x, hn::Max(hn::Set(d, -110.0f), x));
  return ExpReduce<false, false>(d, c, c);
}

// 1 / (1 + e^-x) as e^-|x| / (1 + e^-|x|) for x < 0: no overflow, and subnormal results for
// x in [-103.3, -87.3] instead of 0. kScaled multiplies the x < 0 branch by m (|m| <= 128)
// inside the exponential, so Silu's and Gelu's x * sigmoid is rounded once where sigmoid alone
// would be subnormal.
template <bool kScaled, class D, class V>
HWY_INLINE V SigmoidCore(D d, V x, V m = V()) {
  const V one = hn::Set(d, 1.0f);
  const auto neg = hn::Lt(x, hn::Zero(d));
  const ExpParts<D> e = ExpNonPositive(d, hn::Neg(hn::Abs(x)));
  const V s = MulPow2(d, e.p, e.n, e.ni);
  V num;
  if constexpr (kScaled) {
    num = hn::IfThenElse(neg, MulPow2(d, hn::Mul(e.p, m), e.n, e.ni), one);
  } else {
    num = hn::IfThenElse(neg, s, one);
  }
  return QuotientNear(d, num, hn::Add(one, s));
}

// x < 0 ? q (the product already, <= 0; the sign is restored where the quotient's correction
// turned -0 into +0) : x * q.
template <class D, class V>
HWY_INLINE V NegativeOrTimes(D d, V x, V q) {
  return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Or(q, hn::SignBit(d)), hn::Mul(x, q));
}

}  // namespace impl

// float -> bfloat16 bits in 32-bit lanes: round to nearest even; NaN stays a quiet NaN (as
// tessera::bfloat16).
template <class D, class V>
HWY_INLINE hn::Vec<hn::RebindToUnsigned<D>> Bf16Bits(D, V v) {
  const hn::RebindToUnsigned<D> du;
  const auto u = hn::BitCast(du, v);
  const auto rounded = hn::ShiftRight<16>(
      hn::Add(hn::Add(u, hn::Set(du, 0x7FFFu)), hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u))));
  const auto quiet_nan = hn::Or(hn::ShiftRight<16>(u), hn::Set(du, 0x40u));
  return hn::IfThenElse(hn::RebindMask(du, hn::IsNaN(v)), quiet_nan, rounded);
}

// 32-bit lanes holding values <= 0xFFFF narrowed to 16 bits. On AVX2 the two 128-bit halves are
// packed together: Highway 1.0's DemoteTo packs within halves and then permutes across them
// (vpermq, 3 uops on Zen 1), which made the bfloat16 store loop 1.27x slower.
template <class D16, class VU>
HWY_INLINE hn::Vec<D16> NarrowU16(D16 d16, VU bits) {
#if HWY_TARGET == HWY_AVX2
  if constexpr (sizeof(VU) == 32) {
    (void)d16;
    return hn::Vec<D16>{
        _mm_packus_epi32(_mm256_castsi256_si128(bits.raw), _mm256_extracti128_si256(bits.raw, 1))};
  }
#endif
  const hn::Rebind<int32_t, D16> di;
  return hn::DemoteTo(d16, hn::BitCast(di, bits));
}

// e^x. Max error 1 ulp (see the table). +Inf above 88.7228 (the overflow threshold), subnormal
// results down to -103.97, +0 below; e^-Inf = 0, e^+Inf = +Inf, NaN stays NaN.
template <class D, class V>
HWY_INLINE V Exp(D d, V x) {
  const V c = impl::ClampKeepNaN(d, x, -104.0f, 88.75f);
  const impl::ExpParts<D> e = impl::ExpReduce<true, false>(d, c, c);
  return impl::MulPow2(d, e.p, e.n, e.ni);
}

// ln(x). x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 exact, ln(1 + f) = f + f^2 Q(f) with
// Q a degree-9 Chebyshev fit; e ln2 + f is summed with its rounding error carried (Fast2Sum).
// Subnormals are scaled by 2^25 first. ln(+-0) = -Inf, ln(x < 0) = NaN, ln(+Inf) = +Inf.
template <class D, class V>
HWY_INLINE V Ln(D d, V x) {
  const hn::RebindToSigned<D> di;
  using VI = hn::Vec<decltype(di)>;
  const auto subnormal = hn::Lt(x, hn::Set(d, std::numeric_limits<float>::min()));
  const V xs = hn::IfThenElse(subnormal, hn::Mul(x, hn::Set(d, 33554432.0f)), x);
  const VI sqrt_half = hn::Set(di, 0x3F3504F3);
  const VI ix = hn::Sub(hn::BitCast(di, xs), sqrt_half);
  const VI ei = hn::ShiftRight<23>(ix);
  const V m = hn::BitCast(d, hn::Add(hn::And(ix, hn::Set(di, 0x7FFFFF)), sqrt_half));
  const V f = hn::Sub(m, hn::Set(d, 1.0f));
  const V e = hn::Sub(hn::ConvertTo(d, ei), hn::IfThenElseZero(subnormal, hn::Set(d, 25.0f)));
  const V f2 = hn::Mul(f, f);
  const V f4 = hn::Mul(f2, f2);
  const auto pair = [&](float c0, float c1)
                        HWY_ATTR { return hn::MulAdd(hn::Set(d, c1), f, hn::Set(d, c0)); };
  const V q01 = pair(-5.000000000e-01f, 3.333332241e-01f);
  const V q23 = pair(-2.500001192e-01f, 2.000144720e-01f);
  const V q45 = pair(-1.666753739e-01f, 1.423231810e-01f);
  const V q67 = pair(-1.242081448e-01f, 1.181213632e-01f);
  const V q89 = pair(-1.155728772e-01f, 6.769023836e-02f);
  const V q03 = hn::MulAdd(f2, q23, q01);
  const V q47 = hn::MulAdd(f2, q67, q45);
  const V q = hn::MulAdd(f4, hn::MulAdd(f4, q89, q47), q03);
  const V a = hn::Mul(e, hn::Set(d, 0.693359375f));  // exact: 9-bit constant
  const V hi = hn::Add(a, f);
  const V err = hn::Sub(f, hn::Sub(hi, a));  // |a| >= |f| or a = 0
  const V tail = hn::MulAdd(f2, q, hn::MulAdd(e, hn::Set(d, -2.12194440e-4f), err));
  V y = hn::Add(hi, tail);
  const V zero = hn::Zero(d);
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  y = hn::IfThenElse(hn::Eq(x, inf), inf, y);
  y = hn::IfThenElse(hn::Eq(x, zero), hn::Neg(inf), y);
  y = hn::IfThenElse(hn::Lt(x, zero), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// a / b and 1 / x: the IEEE division (correctly rounded, IEEE edges).
template <class D, class V>
HWY_INLINE V Div(D, V a, V b) {
  return hn::Div(a, b);
}
template <class D, class V>
HWY_INLINE V Reciprocal(D d, V x) {
  return hn::Div(hn::Set(d, 1.0f), x);
}

// 1/sqrt(x), not the estimate instruction: y0 = 1/s with s = sqrt(x), both correctly rounded,
// then corrected from their exact residuals (x - s^2 and 1 - y0 s, by FMA). x below 2^-100 is
// scaled by 2^64 first so the residual x - s^2 does not underflow. Targets without FMA take
// 1/sqrt in fp64 instead, rounded once. rsqrt(+-0) = +-Inf, rsqrt(+Inf) = 0, negative -> NaN.
template <class D, class V>
HWY_INLINE V Rsqrt(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const auto edge =
      hn::Or(hn::Eq(x, hn::Zero(d)), hn::Eq(x, hn::Set(d, std::numeric_limits<float>::infinity())));
#if HWY_NATIVE_FMA
  const auto tiny = hn::Lt(hn::Abs(x), hn::Set(d, 7.88860905e-31f));  // 2^-100
  const V xs = hn::IfThenElse(tiny, hn::Mul(x, hn::Set(d, 18446744073709551616.0f)), x);
  const V s = hn::Sqrt(xs);
  const V y0 = hn::Div(one, s);
  const V ey = hn::NegMulAdd(y0, s, one);
  const V es = hn::NegMulAdd(s, s, xs);
  const V c = hn::NegMulAdd(hn::Mul(hn::Mul(es, hn::Set(d, 0.5f)), y0), y0, ey);
  const V y = hn::IfThenElse(edge, y0, hn::MulAdd(y0, c, y0));
  return hn::Mul(y, hn::IfThenElse(tiny, hn::Set(d, 4294967296.0f), one));  // 2^32
#else
  const auto via64 = [](auto dd, auto v)
                         HWY_ATTR { return hn::Div(hn::Set(dd, 1.0), hn::Sqrt(v)); };
#if HWY_TARGET == HWY_SCALAR
  const hn::Rebind<double, D> dd;
  const V y = hn::DemoteTo(d, via64(dd, hn::PromoteTo(dd, x)));
#else
  const hn::Repartition<double, D> dd;
  const hn::Half<D> dh;
  const auto lo = via64(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
  const auto hi = via64(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
  const V y = hn::Combine(d, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
#endif
  // fp64 -> fp32 demotion saturates, so the infinite results are set from fp32.
  return hn::IfThenElse(edge, hn::Div(one, hn::Sqrt(x)), y);
#endif
}

// 1 / (1 + e^-x). Saturates to 0 and 1 without NaN; subnormal results below x = -87.3.
template <class D, class V>
HWY_INLINE V Sigmoid(D d, V x) {
  return impl::SigmoidCore<false>(d, x);
}

// x * sigmoid(x), rounded once below x = 0 (x e^x / (1 + e^x)); -Inf -> -0 (the limit).
template <class D, class V>
HWY_INLINE V Silu(D d, V x) {
  const V q = impl::SigmoidCore<true>(d, x, hn::Max(hn::Set(d, -128.0f), x));
  return impl::NegativeOrTimes(d, x, q);
}

// tanh(x): x + x^3 P(x^2) (degree-4 Chebyshev fit in x^2) for |x| < 0.5493 (where tanh = 1/2),
// else (1 - t) / (1 + t) with t = e^-2|x|, whose denominator stays in [1, 4/3]. Odd: computed on
// |x| and given x's sign, so tanh(-0) = -0; +-1 at +-Inf.
template <class D, class V>
HWY_INLINE V Tanh(D d, V x) {
  const V ax = hn::Abs(x);
  const V x2 = hn::Mul(ax, ax);
  const V x4 = hn::Mul(x2, x2);
  const V p01 = hn::MulAdd(hn::Set(d, 1.333311498e-01f), x2, hn::Set(d, -3.333333135e-01f));
  const V p23 = hn::MulAdd(hn::Set(d, 2.131179906e-02f), x2, hn::Set(d, -5.390981957e-02f));
  const V p = hn::MulAdd(x4, hn::MulAdd(x4, hn::Set(d, -6.614768412e-03f), p23), p01);
  const V small = hn::MulAdd(hn::Mul(ax, x2), p, ax);
  const impl::ExpParts<D> e = impl::ExpNonPositive(d, hn::Mul(ax, hn::Set(d, -2.0f)));
  const V t = impl::MulPow2(d, e.p, e.n, e.ni);
  const V one = hn::Set(d, 1.0f);
  const V large = impl::QuotientNear(d, hn::Sub(one, t), hn::Add(one, t));
  const V y = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.5493f)), small, large);
  return hn::CopySignToAbs(y, x);
}

// GELU, tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), evaluated as
// x * sigmoid(2u) (the same value without 1 + tanh's cancellation for x < 0). The tail's error
// is the fp32 rounding of 2u amplified by e^2u (about |2u| ulp, up to 214 ulp near x = -10,
// where GELU is ~1e-36); carrying 2u in double-float would cost a third more time. -Inf -> -0.
template <class D, class V>
HWY_INLINE V GeluTanh(D d, V x) {
  const V x2 = hn::Mul(x, x);
  const V z = hn::Mul(x, hn::MulAdd(hn::Set(d, 0.0713548162726f), x2, hn::Set(d, 1.5957691216f)));
  // -Inf -> -FLT_MAX, so the product is -0 rather than -Inf * 0.
  const V xf = hn::Max(hn::Set(d, -std::numeric_limits<float>::max()), x);
  return hn::Mul(xf, impl::SigmoidCore<false>(d, z));
}

// GELU, erf form: x Phi(x) = x erfc(-x / sqrt 2) / 2. erfc(z) = t e^(-z^2 + P(t)), t = 1/(1 + z/2)
// (Numerical Recipes' erfcc Chebyshev fit, relative error < 1.2e-7), with z^2 = x^2 / 2 exact by
// FMA and -z^2 + P(t) summed exactly (TwoSum) into Exp's extended argument; for x < 0 the factor
// x t / 2 goes in before Exp's final scaling, so the tail (subnormal below x = -13.2) is rounded
// once. -Inf -> -0.
template <class D, class V>
HWY_INLINE V GeluErf(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V half = hn::Set(d, 0.5f);
  const V ax = hn::Abs(x);
  const V z = hn::Min(hn::Set(d, 10.5f), hn::Mul(ax, hn::Set(d, 0.70710678118654752f)));
  const V t = impl::QuotientNear(d, one, hn::MulAdd(half, z, one));
  V p = hn::Set(d, 0.17087277f);
  p = hn::MulAdd(p, t, hn::Set(d, -0.82215223f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.48851587f));
  p = hn::MulAdd(p, t, hn::Set(d, -1.13520398f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.27886807f));
  p = hn::MulAdd(p, t, hn::Set(d, -0.18628806f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.09678418f));
  p = hn::MulAdd(p, t, hn::Set(d, 0.37409196f));
  p = hn::MulAdd(p, t, hn::Set(d, 1.00002368f));
  p = hn::MulAdd(p, t, hn::Set(d, -1.26551223f));
  const V xx = hn::Mul(x, x);
  const V z2 = hn::Mul(xx, half);
  const V z2_lo = hn::Mul(hn::MulSub(x, x, xx), half);
  // TwoSum(p, -z2): the exact sum is arg + err.
  const V arg = hn::Sub(p, z2);
  const V bv = hn::Sub(arg, p);
  const V err = hn::Sub(hn::Sub(p, hn::Sub(arg, bv)), hn::Add(z2, bv));
  const V argc = hn::Max(hn::Set(d, -104.0f), arg);
  const auto neg = hn::Lt(x, hn::Zero(d));
  const V m = hn::Mul(hn::Mul(half, t), hn::IfThenElse(neg, x, one));
  // h = erfc(|z|) / 2, times x when x < 0. Beyond |x| = 14.85 erfc is below 2^-150 (or
  // 2 - 2^-25): saturate, which also keeps x = +-Inf (where z2_lo is Inf - Inf) from NaN.
  const impl::ExpParts<D> e = impl::ExpReduce<false, true>(d, argc, hn::Sub(err, z2_lo));
  const V h = hn::IfThenZeroElse(hn::Gt(ax, hn::Set(d, 14.85f)),
                                 impl::MulPow2(d, hn::Mul(e.p, m), e.n, e.ni));
  V y = hn::IfThenElse(neg, hn::Or(h, hn::SignBit(d)), hn::Mul(x, hn::Sub(one, h)));
  // |x| < 0.7: x (1 + erf(x / sqrt 2)) / 2 with erf(x / sqrt 2) = x F(x^2), F a degree-4
  // Chebyshev fit, where 1 - erfc / 2 would cancel.
  const V f01 = hn::MulAdd(hn::Set(d, -1.329806596e-01f), xx, hn::Set(d, 7.978845835e-01f));
  const V f23 = hn::MulAdd(hn::Set(d, -2.365071792e-03f), xx, hn::Set(d, 1.994541660e-02f));
  const V x4 = hn::Mul(xx, xx);
  const V f = hn::MulAdd(x4, hn::MulAdd(x4, hn::Set(d, 2.085559536e-04f), f23), f01);
  const V small = hn::Mul(hn::Mul(half, x), hn::MulAdd(x, f, one));
  y = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.7f)), small, y);
  return impl::KeepNaN(x, y);
}

// ---- Added for the vendor's advanced math APIs (compat/kernel/adv). Max ulp against a long
// double reference is measured by tests/compat/adv_math (math_accuracy_test) and listed in
// docs/ascendc_adv_math.md.

namespace impl {

// ln(x) as an unevaluated sum hi + lo (|lo| <= ulp(hi)), for x > 0 finite: the same reduction
// as Ln with the final addition kept apart (Fast2Sum), so Pow's y ln x keeps ~2^-29 relative.
template <class D, class V>
HWY_INLINE void LnExt(D d, V x, V& hi_out, V& lo_out) {
  const hn::RebindToSigned<D> di;
  using VI = hn::Vec<decltype(di)>;
  const auto subnormal = hn::Lt(x, hn::Set(d, std::numeric_limits<float>::min()));
  const V xs = hn::IfThenElse(subnormal, hn::Mul(x, hn::Set(d, 33554432.0f)), x);
  const VI sqrt_half = hn::Set(di, 0x3F3504F3);
  const VI ix = hn::Sub(hn::BitCast(di, xs), sqrt_half);
  const VI ei = hn::ShiftRight<23>(ix);
  const V m = hn::BitCast(d, hn::Add(hn::And(ix, hn::Set(di, 0x7FFFFF)), sqrt_half));
  const V f = hn::Sub(m, hn::Set(d, 1.0f));
  const V e = hn::Sub(hn::ConvertTo(d, ei), hn::IfThenElseZero(subnormal, hn::Set(d, 25.0f)));
  const V f2 = hn::Mul(f, f);
  const V f4 = hn::Mul(f2, f2);
  const auto pair = [&](float c0, float c1)
                        HWY_ATTR { return hn::MulAdd(hn::Set(d, c1), f, hn::Set(d, c0)); };
  const V q01 = pair(-5.000000000e-01f, 3.333332241e-01f);
  const V q23 = pair(-2.500001192e-01f, 2.000144720e-01f);
  const V q45 = pair(-1.666753739e-01f, 1.423231810e-01f);
  const V q67 = pair(-1.242081448e-01f, 1.181213632e-01f);
  const V q89 = pair(-1.155728772e-01f, 6.769023836e-02f);
  const V q03 = hn::MulAdd(f2, q23, q01);
  const V q47 = hn::MulAdd(f2, q67, q45);
  const V q = hn::MulAdd(f4, hn::MulAdd(f4, q89, q47), q03);
  // -f^2 / 2 as h (exact scaling of the rounded square) plus -f2_lo / 2; the rest of the series
  // in the tail.
  const V h = hn::Mul(hn::Set(d, -0.5f), f2);
  const V f2_lo = hn::MulSub(f, f, f2);
  const V q_rest = hn::Add(q, hn::Set(d, 0.5f));     // q + 1/2: the series beyond -f^2/2
  const V a = hn::Mul(e, hn::Set(d, 0.693359375f));  // exact: 9-bit constant
  // s = a + f + h, summed with the rounding errors carried.
  const V s1 = hn::Add(a, f);
  const V e1 = hn::Sub(f, hn::Sub(s1, a));  // |a| >= |f| or a = 0
  const V s2 = hn::Add(s1, h);
  const V bv = hn::Sub(s2, s1);
  const V e2 = hn::Add(hn::Sub(s1, hn::Sub(s2, bv)), hn::Sub(h, bv));  // TwoSum
  V tail = hn::MulAdd(f2, q_rest, hn::Mul(f2_lo, hn::Set(d, -0.5f)));
  tail = hn::Add(tail, hn::MulAdd(e, hn::Set(d, -2.12194440e-4f), hn::Add(e1, e2)));
  const V hi = hn::Add(s2, tail);
  hi_out = hi;
  lo_out = hn::Sub(tail, hn::Sub(hi, s2));
}

// Exponent of |x| (finite, non-zero) as a float: floor(log2 |x|), subnormals included.
template <class D, class V>
HWY_INLINE V ExponentOf(D d, V ax) {
  const hn::RebindToSigned<D> di;
  const auto subnormal = hn::Lt(ax, hn::Set(d, std::numeric_limits<float>::min()));
  const V xs = hn::IfThenElse(subnormal, hn::Mul(ax, hn::Set(d, 16777216.0f)), ax);
  const V e = hn::ConvertTo(d, hn::Sub(hn::ShiftRight<23>(hn::BitCast(di, xs)), hn::Set(di, 127)));
  return hn::Sub(e, hn::IfThenElseZero(subnormal, hn::Set(d, 24.0f)));
}

}  // namespace impl

// ln(1 + x) from ln(u), u = 1 + x rounded, corrected by (x - (u - 1)) / u. Max 2 ulp.
// log1p(-1) = -Inf, x < -1 -> NaN, +Inf -> +Inf.
namespace impl {
template <class D, class V>
HWY_INLINE V Log1p(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V u = hn::Add(one, x);
  const V corr = hn::Div(hn::Sub(x, hn::Sub(u, one)), u);
  const V y = hn::Add(Ln(d, u), corr);
  // u == 1 (|x| below half an ulp of 1): log1p(x) = x to within an ulp; Inf: no correction.
  const V r = hn::IfThenElse(hn::Eq(u, one), x, y);
  return hn::IfThenElse(hn::Eq(u, hn::Set(d, std::numeric_limits<float>::infinity())), u, r);
}
}  // namespace impl

// acosh(x) for x >= 1: log1p(t + sqrt(2t + t^2)), t = x - 1 (exact) below 2; ln(2x - 1/(x +
// sqrt(x^2 - 1))) below 2^28; ln(x) + ln 2 above. Max 3 ulp. x < 1 -> NaN, +Inf -> +Inf.
template <class D, class V>
HWY_INLINE V Acosh(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V t = hn::Sub(x, one);
  const V near = impl::Log1p(d, hn::Add(t, hn::Sqrt(hn::MulAdd(t, t, hn::Add(t, t)))));
  const V xm = hn::Min(x, hn::Set(d, 268435456.0f));
  const V mid =
      Ln(d, hn::Sub(hn::Add(xm, xm), hn::Div(one, hn::Add(xm, hn::Sqrt(hn::MulSub(xm, xm, one))))));
  const V far = hn::Add(Ln(d, x), hn::Set(d, 0.693147180559945309f));
  V y = hn::IfThenElse(hn::Lt(x, hn::Set(d, 2.0f)), near, mid);
  y = hn::IfThenElse(hn::Ge(x, hn::Set(d, 268435456.0f)), far, y);
  y = hn::IfThenElse(hn::Lt(x, one), hn::Set(d, std::numeric_limits<float>::quiet_NaN()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// erf(x). |x| < 0.5: x P(x^2), the Maclaurin series to x^17 (truncation < 3e-11 relative);
// otherwise 1 - erfc(|x|) with erfc(z) = t e^(-z^2 + Q(t)), t = 1/(1 + z/2) (the erfcc
// Chebyshev fit of GeluErf, relative error < 1.2e-7), given x's sign; +-1 beyond |x| = 4 (where
// erfc < 2^-25). Max 2 ulp. Odd, erf(-0) = -0, erf(+-Inf) = +-1.
template <class D, class V>
HWY_INLINE V Erf(D d, V x) {
  const V one = hn::Set(d, 1.0f);
  const V ax = hn::Abs(x);
  const V x2 = hn::Mul(x, x);
  // 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1)), Horner in x^2.
  V p = hn::Set(d, 2.0f / 1.7724538509055160f * 1.0f / (40320.0f * 17.0f));
  p = hn::MulAdd(p, x2, hn::Set(d, -2.0f / 1.7724538509055160f / (5040.0f * 15.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, 2.0f / 1.7724538509055160f / (720.0f * 13.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, -2.0f / 1.7724538509055160f / (120.0f * 11.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, 2.0f / 1.7724538509055160f / (24.0f * 9.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, -2.0f / 1.7724538509055160f / (6.0f * 7.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, 2.0f / 1.7724538509055160f / (2.0f * 5.0f)));
  p = hn::MulAdd(p, x2, hn::Set(d, -2.0f / 1.7724538509055160f / 3.0f));
  p = hn::MulAdd(p, x2, hn::Set(d, 1.12837916709551257f));
  const V small = hn::Mul(x, p);
  const V z = hn::Min(ax, hn::Set(d, 4.5f));
  const V t = impl::QuotientNear(d, one, hn::MulAdd(hn::Set(d, 0.5f), z, one));
  V q = hn::Set(d, 0.17087277f);
  q = hn::MulAdd(q, t, hn::Set(d, -0.82215223f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.48851587f));
  q = hn::MulAdd(q, t, hn::Set(d, -1.13520398f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.27886807f));
  q = hn::MulAdd(q, t, hn::Set(d, -0.18628806f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.09678418f));
  q = hn::MulAdd(q, t, hn::Set(d, 0.37409196f));
  q = hn::MulAdd(q, t, hn::Set(d, 1.00002368f));
  q = hn::MulAdd(q, t, hn::Set(d, -1.26551223f));
  const V erfc = hn::Mul(t, Exp(d, hn::NegMulAdd(z, z, q)));
  const V large = hn::CopySignToAbs(hn::Sub(one, erfc), x);
  const V y = hn::IfThenElse(hn::Lt(ax, hn::Set(d, 0.5f)), small, large);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

// x^y as e^(y ln|x|) with ln|x| in double-float (LnExt) and the product's low part fed to Exp's
// extended argument, so the error stays ~1 ulp even where |y ln x| is large. C99 pow's special
// cases: x^0 = 1 and 1^y = 1 (NaN included); x < 0 gives NaN unless y is an integer (odd y keeps
// the sign, also for -0 and -Inf); 0^y and Inf^y follow from ln(0) = -Inf. Max error in the
// docs table (a few ulp: ln's 2^-29 relative error times |y ln x| <= 88).
template <class D, class V>
HWY_INLINE V Pow(D d, V x, V y) {
  const V one = hn::Set(d, 1.0f);
  const V ax = hn::Abs(x);
  V lhi, llo;
  impl::LnExt(d, ax, lhi, llo);
  const auto finite_ax = hn::And(hn::Gt(ax, hn::Zero(d)),
                                 hn::Lt(ax, hn::Set(d, std::numeric_limits<float>::infinity())));
  lhi = hn::IfThenElse(finite_ax, lhi, Ln(d, ax));  // +-Inf and NaN as Ln gives them
  llo = hn::IfThenElseZero(finite_ax, llo);
  const V p = hn::Mul(y, lhi);
  const auto moderate = hn::Lt(hn::Abs(p), hn::Set(d, 100.0f));  // else the result saturates
  const V p_lo = hn::IfThenElseZero(moderate, hn::MulAdd(y, llo, hn::MulSub(y, lhi, p)));
  const V c = impl::ClampKeepNaN(d, p, -104.0f, 88.75f);
  const impl::ExpParts<D> e = impl::ExpReduce<true, true>(d, c, p_lo);
  V r = impl::MulPow2(d, e.p, e.n, e.ni);
  // Sign and domain for x < 0 (and -0): integral y, odd or even.
  const V ry = hn::Round(y);
  const auto integral = hn::Eq(ry, y);
  const V half_y = hn::Mul(y, hn::Set(d, 0.5f));
  const auto odd = hn::And(integral, hn::Ne(hn::Round(half_y), half_y));
  const auto negative =
      hn::Lt(hn::BitCast(hn::RebindToSigned<D>(), x), hn::Zero(hn::RebindToSigned<D>()));
  const auto neg = hn::RebindMask(d, negative);
  r = hn::IfThenElse(hn::And(neg, odd), hn::Neg(r), r);
  const auto bad_domain = hn::AndNot(integral, neg);  // x < 0, y not an integer
  r = hn::IfThenElse(bad_domain, hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  r = hn::IfThenElse(hn::IsNaN(x), x, r);
  r = hn::IfThenElse(hn::IsNaN(y), y, r);
  return hn::IfThenElse(hn::Or(hn::Eq(y, hn::Zero(d)), hn::Eq(x, one)), one, r);
}

// fmod(x, y) = x - trunc(x / y) y, exactly (the C library's result): |x| is reduced by y scaled
// to within 2^23 of |x|'s exponent, where each step's quotient is an integer below 2^24 and the
// remainder, computed by FMA, is exact; at most 12 steps for any pair of floats. The result has
// x's sign. y = 0, x = +-Inf or NaN -> NaN; y = +-Inf -> x.
template <class D, class V>
HWY_INLINE V Fmod(D d, V x, V y) {
  const hn::RebindToSigned<D> di;
  const V ax = hn::Abs(x);
  const V ay = hn::Abs(y);
  const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
  const auto valid =
      hn::And(hn::And(hn::Lt(ax, inf), hn::Gt(ay, hn::Zero(d))), hn::Not(hn::IsNaN(ay)));
  const auto work0 = hn::And(valid, hn::And(hn::Ge(ax, ay), hn::Lt(ay, inf)));
  V r = hn::IfThenElse(work0, ax, hn::Zero(d));
  const V ay_safe = hn::IfThenElse(work0, ay, hn::Set(d, 1.0f));
  const V ey = impl::ExponentOf(d, ay_safe);
  auto work = work0;
  while (!hn::AllFalse(d, work)) {
    const V er = impl::ExponentOf(d, hn::IfThenElse(work, r, ay_safe));
    const V shift = hn::Max(hn::Zero(d), hn::Sub(hn::Sub(er, ey), hn::Set(d, 23.0f)));
    const V ys = impl::MulPow2(d, ay_safe, shift, hn::ConvertTo(di, shift));
    const V q = hn::Trunc(hn::Div(r, ys));
    V rn = hn::NegMulAdd(q, ys, r);
    rn = hn::IfThenElse(hn::Lt(rn, hn::Zero(d)), hn::Add(rn, ys), rn);  // q rounded up by one
    r = hn::IfThenElse(work, rn, r);
    work = hn::And(work, hn::Ge(r, ay_safe));
  }
  V out = hn::IfThenElse(work0, r, ax);  // |x| < |y| or y = +-Inf: x itself
  out = hn::CopySignToAbs(out, x);
  return hn::IfThenElse(valid, out, hn::Set(d, std::numeric_limits<float>::quiet_NaN()));
}

// x - trunc(x): the fractional part with x's sign (exact). +-Inf -> +-0, NaN stays NaN.
template <class D, class V>
HWY_INLINE V Frac(D d, V x) {
  const V f = hn::Sub(x, hn::Trunc(x));
  const auto inf = hn::Eq(hn::Abs(x), hn::Set(d, std::numeric_limits<float>::infinity()));
  return hn::CopySignToAbs(hn::IfThenZeroElse(inf, f), x);
}

}  // namespace HWY_NAMESPACE
}  // namespace tessera::kernel::math
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
