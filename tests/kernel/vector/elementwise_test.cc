// Elementwise vector instructions: count form against scalar references (bit-exact where the
// operation is correctly rounded), mask + repeat form, fp32 math accuracy sweeps, activations.
#include <algorithm>
#include <cfloat>
#include <limits>

#include "vector_test_util.h"

namespace tessera::kernel::testing {
namespace {

// Scalar reference of a binary op computed in float (int32 in wrapping int64 arithmetic).
template <class T>
T RefBinary(vec::BinaryOp op, T a, T b) {
  if constexpr (std::is_same_v<T, int32_t>) {
    const int64_t x = a, y = b;
    switch (op) {
      case vec::BinaryOp::kAdd:
        return static_cast<int32_t>(static_cast<uint32_t>(x + y));
      case vec::BinaryOp::kSub:
        return static_cast<int32_t>(static_cast<uint32_t>(x - y));
      case vec::BinaryOp::kMul:
        return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x * y)));
      case vec::BinaryOp::kMax:
        return std::max(a, b);
      default:
        return std::min(a, b);
    }
  } else {
    const float x = ToF(a), y = ToF(b);
    switch (op) {
      case vec::BinaryOp::kAdd:
        return FromF<T>(x + y);
      case vec::BinaryOp::kSub:
        return FromF<T>(x - y);
      case vec::BinaryOp::kMul:
        return FromF<T>(x * y);
      case vec::BinaryOp::kDiv:
        return FromF<T>(x / y);
      case vec::BinaryOp::kMax:
        return FromF<T>(std::max(x, y));
      default:
        return FromF<T>(std::min(x, y));
    }
  }
}

template <class T>
void CallBinary(vec::BinaryOp op, Buf<T>& d, Buf<T>& a, Buf<T>& b, int32_t n) {
  switch (op) {
    case vec::BinaryOp::kAdd:
      return Add(d.t(), a.t(), b.t(), n);
    case vec::BinaryOp::kSub:
      return Sub(d.t(), a.t(), b.t(), n);
    case vec::BinaryOp::kMul:
      return Mul(d.t(), a.t(), b.t(), n);
    case vec::BinaryOp::kDiv:
      if constexpr (!std::is_same_v<T, int32_t>) Div(d.t(), a.t(), b.t(), n);
      return;
    case vec::BinaryOp::kMax:
      return Max(d.t(), a.t(), b.t(), n);
    case vec::BinaryOp::kMin:
      return Min(d.t(), a.t(), b.t(), n);
  }
}

template <class T>
void CheckBinaryOps() {
  const float range = std::is_same_v<T, int32_t> ? 2e9f : 100.0f;
  for (auto op : {vec::BinaryOp::kAdd, vec::BinaryOp::kSub, vec::BinaryOp::kMul,
                  vec::BinaryOp::kDiv, vec::BinaryOp::kMax, vec::BinaryOp::kMin}) {
    if (std::is_same_v<T, int32_t> && op == vec::BinaryOp::kDiv) continue;
    for (int32_t n : kCounts) {
      auto a = Random<T>(n, -range, range, 1 + n);
      auto b = Random<T>(n, -range, range, 2 + n);
      Buf<T> d(n);
      CallBinary(op, d, a, b, n);
      const std::string what =
          TypeName<T>() + " op " + std::to_string(int(op)) + " n=" + std::to_string(n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(d[i]), Bits(RefBinary(op, a[i], b[i]))) << what << " i=" << i;
      }
      d.ExpectSentinels(what);
      // In place: dst is src0.
      CallBinary(op, a, a, b, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(Bits(a[i]), Bits(d[i])) << what << " in place";
    }
  }
}

TEST_P(TargetTest, BinaryCountFormAllTypes) {
  CheckBinaryOps<float>();
  CheckBinaryOps<half>();
  CheckBinaryOps<bfloat16>();
  CheckBinaryOps<int32_t>();
}

template <class T>
void CheckScalarOps() {
  const bool is_int = std::is_same_v<T, int32_t>;
  const T s = FromF<T>(is_int ? 12345.0f : 0.3f);
  for (int32_t n : kCounts) {
    auto a = Random<T>(n, is_int ? -2e9f : -50.0f, is_int ? 2e9f : 50.0f, 7 * n);
    const std::string what = TypeName<T>() + " n=" + std::to_string(n);
    Buf<T> d(n);
    Adds(d.t(), a.t(), s, n);
    for (int32_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(d[i]), Bits(RefBinary(vec::BinaryOp::kAdd, a[i], s))) << what;
    Muls(d.t(), a.t(), s, n);
    for (int32_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(d[i]), Bits(RefBinary(vec::BinaryOp::kMul, a[i], s))) << what;
    Maxs(d.t(), a.t(), s, n);
    for (int32_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(d[i]), Bits(RefBinary(vec::BinaryOp::kMax, a[i], s))) << what;
    Mins(d.t(), a.t(), s, n);
    for (int32_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(d[i]), Bits(RefBinary(vec::BinaryOp::kMin, a[i], s))) << what;
    Abs(d.t(), a.t(), n);
    for (int32_t i = 0; i < n; ++i) {
      const T want = is_int ? FromF<T>(0) : FromF<T>(std::fabs(ToF(a[i])));
      if constexpr (std::is_same_v<T, int32_t>) {
        ASSERT_EQ(d[i], a[i] < 0 ? -a[i] : a[i]) << what;
      } else {
        ASSERT_EQ(Bits(d[i]), Bits(want)) << what;
      }
    }
    Relu(d.t(), a.t(), n);
    for (int32_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, int32_t>) {
        ASSERT_EQ(d[i], std::max(a[i], 0)) << what;
      } else {
        ASSERT_EQ(Bits(d[i]), Bits(ToF(a[i]) < 0 ? FromF<T>(0.0f) : a[i])) << what;
      }
    }
    const T dup = a[n / 2];
    Duplicate(d.t(), dup, n);
    for (int32_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(d[i]), Bits(dup)) << what;
    if constexpr (!std::is_same_v<T, int32_t>) {
      const T alpha = FromF<T>(0.01f);
      LeakyRelu(d.t(), a.t(), alpha, n);
      for (int32_t i = 0; i < n; ++i) {
        const float x = ToF(a[i]);
        ASSERT_EQ(Bits(d[i]), Bits(x < 0 ? FromF<T>(x * ToF(alpha)) : a[i])) << what;
      }
      Sqrt(d.t(), a.t(), n);  // negative half -> NaN
      for (int32_t i = 0; i < n; ++i) {
        const float want = std::sqrt(ToF(a[i]));
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(ToF(d[i]))) << what;
        } else {
          ASSERT_EQ(Bits(d[i]), Bits(FromF<T>(want))) << what;
        }
      }
      Reciprocal(d.t(), a.t(), n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(Bits(d[i]), Bits(FromF<T>(1.0f / ToF(a[i])))) << what;
    }
    d.ExpectSentinels(what);
  }
}

TEST_P(TargetTest, ScalarAndSimpleUnaryOpsAllTypes) {
  CheckScalarOps<float>();
  CheckScalarOps<half>();
  CheckScalarOps<bfloat16>();
  CheckScalarOps<int32_t>();
}

TEST_P(TargetTest, Int32WrapsAndSaturatesNothing) {
  Buf<int32_t> a(3), b(3), d(3);
  a[0] = INT32_MAX;
  b[0] = 1;
  a[1] = INT32_MIN;
  b[1] = 1;
  a[2] = 65536 + 3;
  b[2] = 65536 + 5;
  Add(d.t(), a.t(), b.t(), 3);
  EXPECT_EQ(d[0], INT32_MIN);
  Sub(d.t(), a.t(), b.t(), 3);
  EXPECT_EQ(d[1], INT32_MAX);
  Mul(d.t(), a.t(), b.t(), 3);
  EXPECT_EQ(d[2], static_cast<int32_t>(uint32_t(65539) * uint32_t(65541)));
  Abs(d.t(), a.t(), 3);
  EXPECT_EQ(d[1], INT32_MIN);
  d.ExpectSentinels("int32 wrap");
}

// ---- Mask + repeat form.

// Scalar model of the mask + repeat addressing.
template <class T>
void RepeatModel(vec::BinaryOp op, std::vector<T>& d, const std::vector<T>& a,
                 const std::vector<T>& b, const uint64_t mask[2], int repeat,
                 const BinaryRepeatParams& p) {
  const int per_block = 32 / sizeof(T);
  for (int r = 0; r < repeat; ++r) {
    for (int e = 0; e < 256 / int(sizeof(T)); ++e) {
      if (!((mask[e / 64] >> (e % 64)) & 1)) continue;
      const int blk = e / per_block, j = e % per_block;
      const size_t od = (r * p.dstRepStride + blk * p.dstBlkStride) * per_block + j;
      const size_t oa = (r * p.src0RepStride + blk * p.src0BlkStride) * per_block + j;
      const size_t ob = (r * p.src1RepStride + blk * p.src1BlkStride) * per_block + j;
      d[od] = RefBinary(op, a[oa], b[ob]);
    }
  }
}

template <class T>
void CheckRepeat() {
  const int per_repeat = 256 / sizeof(T);
  struct Case {
    BinaryRepeatParams p;
    int repeat;
  };
  const Case cases[] = {
      {{1, 1, 1, 8, 8, 8}, 3},    // dense, the default
      {{2, 1, 3, 16, 8, 24}, 4},  // gaps between blocks
      {{1, 2, 1, 9, 17, 0}, 5},   // src1 reused by every repeat (repStride 0)
      {{3, 3, 3, 24, 24, 24}, 1},
  };
  for (const Case& c : cases) {
    const size_t size = 40 * 32 * 8 / sizeof(T);  // enough for every case above
    auto a = Random<T>(size, -20, 20, 11);
    auto b = Random<T>(size, 1, 20, 12);
    for (uint64_t count_mask : {uint64_t{1}, uint64_t{per_repeat / 2 + 3}, uint64_t(per_repeat)}) {
      for (auto op : {vec::BinaryOp::kAdd, vec::BinaryOp::kMul, vec::BinaryOp::kMax}) {
        Buf<T> d = Random<T>(size, -5, 5, 13);  // untouched elements must keep these values
        std::vector<T> want = d.v;
        const uint64_t bits[2] = {
            count_mask >= 64 ? ~0ull : (1ull << count_mask) - 1,
            count_mask > 64 ? (count_mask >= 128 ? ~0ull : (1ull << (count_mask - 64)) - 1) : 0};
        RepeatModel(op, want, a.v, b.v, bits, c.repeat, c.p);
        if (op == vec::BinaryOp::kAdd) Add(d.t(), a.t(), b.t(), count_mask, c.repeat, c.p);
        if (op == vec::BinaryOp::kMul) Mul(d.t(), a.t(), b.t(), count_mask, c.repeat, c.p);
        if (op == vec::BinaryOp::kMax) Max(d.t(), a.t(), b.t(), count_mask, c.repeat, c.p);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(Bits(d[i]), Bits(want[i]))
              << TypeName<T>() << " mask " << count_mask << " i=" << i;
        }
      }
    }
    // Bit mask: a sparse, irregular pattern (both words for 16-bit types).
    const uint64_t sparse[2] = {
        0x8000F0F000FF0135ull & (per_repeat >= 64 ? ~0ull : (1ull << per_repeat) - 1),
        per_repeat > 64 ? 0x0F00000000000003ull : 0};
    Buf<T> d = Random<T>(size, -5, 5, 14);
    std::vector<T> want = d.v;
    RepeatModel(vec::BinaryOp::kSub, want, a.v, b.v, sparse, c.repeat, c.p);
    Sub(d.t(), a.t(), b.t(), sparse, c.repeat, c.p);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(Bits(d[i]), Bits(want[i])) << TypeName<T>() << " bits i=" << i;
    if constexpr (!std::is_same_v<T, int32_t>) {
      want = d.v;
      RepeatModel(vec::BinaryOp::kDiv, want, a.v, b.v, sparse, c.repeat, c.p);
      Div(d.t(), a.t(), b.t(), sparse, c.repeat, c.p);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(Bits(d[i]), Bits(want[i])) << TypeName<T>() << " div i=" << i;
    }
  }
}

TEST_P(TargetTest, MaskRepeatFormWithStrides) {
  CheckRepeat<float>();
  CheckRepeat<half>();
  CheckRepeat<int32_t>();
}

// ---- fp32 math accuracy against long double.

struct MathCase {
  const char* name;
  void (*op)(const LocalTensor<float>&, const LocalTensor<float>&, int32_t);
  long double (*ref)(long double);
};

const MathCase kMath[] = {
    {"Exp", &Exp<float>, [](long double x) { return std::exp(x); }},
    {"Ln", &Ln<float>, [](long double x) { return std::log(x); }},
    {"Sqrt", &Sqrt<float>, [](long double x) { return std::sqrt(x); }},
    {"Rsqrt", &Rsqrt<float>, [](long double x) { return 1.0L / std::sqrt(x); }},
};

// Max ulp error of op over xs; every result is also checked for the NaN/Inf class of the reference.
double MaxUlp(const MathCase& m, const std::vector<float>& xs, float* worst_x) {
  Buf<float> in(xs.size()), out(xs.size());
  std::copy(xs.begin(), xs.end(), in.v.begin());
  m.op(out.t(), in.t(), static_cast<int32_t>(xs.size()));
  out.ExpectSentinels(m.name);
  double worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const long double want = m.ref(xs[i]);
    const double e = UlpError(out[i], want);
    if (e > worst) {
      worst = e;
      *worst_x = xs[i];
    }
  }
  return worst;
}

TEST_P(TargetTest, MathFp32WithinTwoUlpOnRandomBitPatterns) {
  std::mt19937 rng(2024);
  std::vector<float> any_finite, exp_domain;
  while (any_finite.size() < 400000) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isfinite(x)) any_finite.push_back(x);
  }
  std::uniform_real_distribution<float> exp_range(-104.0f, 89.0f);
  for (int i = 0; i < 400000; ++i)
    exp_domain.push_back(exp_range(rng));
  for (const MathCase& m : kMath) {
    float worst_x = 0;
    const bool is_exp = std::string(m.name) == "Exp";
    std::vector<float> xs = is_exp ? exp_domain : any_finite;
    if (!is_exp) {
      for (float& x : xs)
        x = std::fabs(x);  // the real domain; negatives are edge-tested below
    }
    const double ulp = MaxUlp(m, xs, &worst_x);
    RecordProperty(std::string(m.name) + "_max_ulp", ::testing::PrintToString(ulp));
    EXPECT_LE(ulp, 2.0) << m.name << " at x=" << worst_x;
    // Documented bounds (docs/kernel_vector.md): 1 ulp for these four.
    EXPECT_LE(ulp, 1.0) << m.name << " at x=" << worst_x;
  }
}

TEST_P(TargetTest, MathFp32EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float den = std::numeric_limits<float>::denorm_min();
  const std::vector<float> edges = {0.0f,      -0.0f,      den,        -den,    1e-40f,
                                    FLT_MIN,   -FLT_MIN,   1.0f,       -1.0f,   FLT_MAX,
                                    -FLT_MAX,  inf,        -inf,       nan,     -nan,
                                    88.72283f, 88.72284f,  88.7229f,   89.0f,   100.0f,
                                    1e30f,     -87.33654f, -87.34f,    -100.0f, -103.9720840454f,
                                    -103.98f,  -104.0f,    -105.0f,    -1e30f,  0.5f,
                                    2.0f,      1.0000001f, 0.99999994f};
  for (const MathCase& m : kMath) {
    Buf<float> in(edges.size()), out(edges.size());
    std::copy(edges.begin(), edges.end(), in.v.begin());
    m.op(out.t(), in.t(), static_cast<int32_t>(edges.size()));
    for (size_t i = 0; i < edges.size(); ++i) {
      const long double want = m.ref(edges[i]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(out[i])) << m.name << "(" << edges[i] << ") = " << out[i];
      } else {  // UlpError demands +-Inf where the exact value overflows
        EXPECT_LE(UlpError(out[i], want), 1.0) << m.name << "(" << edges[i] << ") = " << out[i];
      }
    }
    out.ExpectSentinels(m.name);
  }
  // Signs of the infinities at zero.
  Buf<float> in(2), out(2);
  in[0] = -0.0f;
  in[1] = 0.0f;
  Rsqrt(out.t(), in.t(), 2);
  EXPECT_EQ(out[0], -inf);
  EXPECT_EQ(out[1], inf);
  Ln(out.t(), in.t(), 2);
  EXPECT_EQ(out[0], -inf);
  EXPECT_EQ(out[1], -inf);
}

// 16-bit math: the fp32 result rounded once, so within 1 step of the exact value rounded.
template <class T>
void CheckMath16() {
  for (const MathCase& m : kMath) {
    for (int32_t n : kCounts) {
      const bool is_exp = std::string(m.name) == "Exp";
      auto a = Random<T>(n, is_exp ? -15.0f : 1e-3f, is_exp ? 11.0f : 6e4f, 31 * n);
      Buf<T> d(n);
      Buf<float> a32(n), d32(n);
      for (int32_t i = 0; i < n; ++i)
        a32[i] = ToF(a[i]);
      if (is_exp) Exp(d.t(), a.t(), n);
      if (std::string(m.name) == "Ln") Ln(d.t(), a.t(), n);
      if (std::string(m.name) == "Sqrt") Sqrt(d.t(), a.t(), n);
      if (std::string(m.name) == "Rsqrt") Rsqrt(d.t(), a.t(), n);
      m.op(d32.t(), a32.t(), n);
      for (int32_t i = 0; i < n; ++i) {
        // Bit-exact with narrowing the fp32 instruction's result ...
        ASSERT_EQ(Bits(d[i]), Bits(FromF<T>(d32[i]))) << m.name << " " << TypeName<T>();
        // ... and at most one step from the exact value correctly rounded.
        ASSERT_LE(Steps16(d[i], FromF<T>(static_cast<float>(m.ref(ToF(a[i]))))), 1)
            << m.name << " " << TypeName<T>() << " x=" << ToF(a[i]);
      }
      d.ExpectSentinels(m.name);
    }
  }
}

TEST_P(TargetTest, Math16BitTypes) {
  CheckMath16<half>();
  CheckMath16<bfloat16>();
}

// ---- Activations.

struct ActCase {
  const char* name;
  void (*op32)(const LocalTensor<float>&, const LocalTensor<float>&, int32_t);
  void (*op16)(const LocalTensor<half>&, const LocalTensor<half>&, int32_t);
  long double (*ref)(long double);
  double max_rel;  // documented bound (relative, or absolute below 1e-30 - see docs)
};

long double GeluTanhRef(long double x) {
  const long double u =
      std::sqrt(2.0L / 3.14159265358979323846264338327950288L) * (x + 0.044715L * x * x * x);
  return x / (1.0L + std::exp(-2.0L * u));  // == 0.5 x (1 + tanh u), without its cancellation
}

const ActCase kActs[] = {
    {"Sigmoid", &Sigmoid<float>, &Sigmoid<half>,
     [](long double x) { return 1.0L / (1.0L + std::exp(-x)); }, 4e-7},
    {"Tanh", &Tanh<float>, &Tanh<half>, [](long double x) { return std::tanh(x); }, 5e-7},
    {"Gelu", &Gelu<float>, &Gelu<half>, GeluTanhRef, 1e-5},
    {"GeluErf", &GeluErf<float>, &GeluErf<half>,
     [](long double x) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }, 1e-5},
    {"Silu", &Silu<float>, &Silu<half>, [](long double x) { return x / (1.0L + std::exp(-x)); },
     4e-7},
};

TEST_P(TargetTest, ActivationsFp32RelativeError) {
  for (const ActCase& a : kActs) {
    double worst = 0;
    float worst_x = 0;
    for (int32_t n : kCounts) {
      auto x = Random<float>(n, -20.0f, 20.0f, 41 * n);
      Buf<float> y(n);
      a.op32(y.t(), x.t(), n);
      for (int32_t i = 0; i < n; ++i) {
        const long double want = a.ref(x[i]);
        // Relative error, except where the true value is below 1e-30 (Gelu/Silu tails).
        const double rel =
            static_cast<double>(std::fabs(y[i] - want) / std::max(std::fabs(want), 1e-30L));
        if (rel > worst) {
          worst = rel;
          worst_x = x[i];
        }
      }
      y.ExpectSentinels(a.name);
    }
    RecordProperty(std::string(a.name) + "_max_rel", ::testing::PrintToString(worst));
    EXPECT_LE(worst, a.max_rel) << a.name << " at x=" << worst_x;
  }
}

TEST_P(TargetTest, ActivationsLimitsAndHalf) {
  const float inf = std::numeric_limits<float>::infinity();
  Buf<float> x(4), y(4);
  x[0] = -inf;
  x[1] = inf;
  x[2] = -1000.0f;
  x[3] = 1000.0f;
  Sigmoid(y.t(), x.t(), 4);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 1.0f);
  Tanh(y.t(), x.t(), 4);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(y[1], 1.0f);
  for (auto op : {&Gelu<float>, &GeluErf<float>, &Silu<float>}) {
    op(y.t(), x.t(), 4);
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_TRUE(std::signbit(y[0]));  // -0, not NaN
    EXPECT_EQ(y[1], inf);
    EXPECT_EQ(y[2], 0.0f);
    EXPECT_EQ(y[3], 1000.0f);
  }
  // half: the fp32 activation rounded once.
  for (const ActCase& a : kActs) {
    auto xh = Random<half>(257, -8, 8, 5);
    Buf<half> yh(257);
    Buf<float> x32(257), y32(257);
    for (int i = 0; i < 257; ++i)
      x32[i] = ToF(xh[i]);
    a.op16(yh.t(), xh.t(), 257);
    a.op32(y32.t(), x32.t(), 257);
    for (int i = 0; i < 257; ++i)
      ASSERT_EQ(Bits(yh[i]), Bits(half(y32[i]))) << a.name;
    yh.ExpectSentinels(a.name);
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, TargetTest, ::testing::ValuesIn(CompiledTargets()),
                         TargetParamName);

}  // namespace
}  // namespace tessera::kernel::testing
