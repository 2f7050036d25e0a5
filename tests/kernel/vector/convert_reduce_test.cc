// Cast (every RoundMode), Compare, Select, reductions and SoftMax against scalar / long double
// references, and checked-mode errors raised inside launched kernels.
#include <algorithm>
#include <cfloat>
#include <limits>
#include <numeric>

#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "vector_test_util.h"

namespace tessera::kernel::testing {
namespace {

class ConvertTest : public TargetTest {};
class ReduceTest : public TargetTest {};

const RoundMode kModes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT,  RoundMode::CAST_FLOOR,
                            RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC,
                            RoundMode::CAST_ODD};

// Independent reference for rounding an exact value w to a 16-bit float type or float: bracket w
// between the two neighbouring representable values and pick by the mode's definition.
template <class N>
N RefRound(long double w, RoundMode mode) {
  const auto widen = [](N v) { return static_cast<long double>(static_cast<float>(v)); };
  const auto from_bits = [](uint32_t b) {
    if constexpr (sizeof(N) == 2) {
      return std::bit_cast<N>(static_cast<uint16_t>(b));
    } else {
      return std::bit_cast<N>(b);
    }
  };
  // Nearest by truncating toward zero, then the next one away from zero.
  N lo_mag = N(static_cast<float>(0.0f));
  {
    // Binary search on the magnitude's bit pattern for the largest value <= |w|.
    const long double aw = std::fabs(w);
    uint32_t lo = 0,
             hi = sizeof(N) == 2 ? (std::is_same_v<N, half> ? 0x7C00u : 0x7F80u) : 0x7F800000u;
    while (lo < hi) {
      const uint32_t mid = lo + (hi - lo + 1) / 2;
      if (widen(from_bits(mid)) <= aw)
        lo = mid;
      else
        hi = mid - 1;
    }
    lo_mag = from_bits(lo);
  }
  const uint32_t sign = std::signbit(w) ? (sizeof(N) == 2 ? 0x8000u : 0x80000000u) : 0;
  const uint32_t t_bits = Bits(lo_mag) | sign;  // truncated toward zero
  const uint32_t a_bits = t_bits + 1;           // away from zero
  const long double t = widen(from_bits(t_bits));
  if (t == w) return from_bits(t_bits);
  // Past the largest finite value, IEEE rounds as if the exponent range were unbounded: the
  // next value is 2^16 (half) or 2^128, and a result there becomes infinity.
  long double a = widen(from_bits(a_bits));
  if (std::isinf(a)) a = std::copysign(std::ldexp(1.0L, std::is_same_v<N, half> ? 16 : 128), w);
  const bool pos = w > 0;
  const long double dt = std::fabs(w - t), da = std::fabs(a - w);
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      return from_bits(pos ? t_bits : a_bits);
    case RoundMode::CAST_CEIL:
      return from_bits(pos ? a_bits : t_bits);
    case RoundMode::CAST_TRUNC:
      return from_bits(t_bits);
    case RoundMode::CAST_ODD:
      return from_bits(t_bits | 1u);
    case RoundMode::CAST_ROUND:
      return from_bits(dt < da ? t_bits : a_bits);
    default:  // nearest even
      if (dt != da) return from_bits(dt < da ? t_bits : a_bits);
      return from_bits((t_bits & 1u) ? a_bits : t_bits);
  }
}

// Values with ties, negatives, subnormals and overflow for narrowing float -> N.
template <class N>
std::vector<float> NarrowingInputs() {
  std::vector<float> xs;
  const int mant = std::is_same_v<N, half> ? 10 : 7;
  for (float base : {1.0f, 3.0f, 1024.0f, 0.0001f}) {
    const float ulp = std::ldexp(base, -mant) / (base == 3.0f ? 2.0f : 1.0f);
    for (float k : {0.5f, 1.5f, 2.5f, 0.25f, 0.75f, 1.0f}) {  // ties at k = x.5
      xs.push_back(base + k * ulp);
      xs.push_back(-(base + k * ulp));
    }
  }
  if (std::is_same_v<N, half>) {
    for (float x : {65504.0f, 65519.0f, 65520.0f, 70000.0f, 1e-7f, 2.9802322e-8f, 8.9e-8f, 1e-9f}) {
      xs.push_back(x);
      xs.push_back(-x);
    }
  } else {
    xs.push_back(FLT_MAX);
    xs.push_back(-FLT_MAX);
    xs.push_back(1e-40f);
  }
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> dist(-300.0f, 300.0f);
  while (xs.size() < 4097)
    xs.push_back(dist(rng));
  return xs;
}

template <class N>
void CheckNarrowing() {
  const std::vector<float> xs = NarrowingInputs<N>();
  for (RoundMode mode : kModes) {
    for (int32_t n : {1, 7, 31, 64, 257, static_cast<int32_t>(xs.size())}) {
      Buf<float> in(n);
      std::copy(xs.begin(), xs.begin() + n, in.v.begin());
      Buf<N> out(n);
      Cast(out.t(), in.t(), mode, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(out[i]), Bits(RefRound<N>(in[i], mode)))
            << TypeName<N>() << " mode " << int(mode) << " x=" << in[i];
      }
      out.ExpectSentinels("Cast");
    }
  }
  // NaN stays NaN and matches the scalar conversion bit for bit; RINT matches core/float16.h.
  // 35 values: the specials sit in every lane of whole vectors and in the scalar tail.
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::bit_cast<float>(0xFFA00001u),  // signalling, negative, low payload
                            std::numeric_limits<float>::infinity(), 1.00390625f, -3.0f};
  constexpr int32_t kN = 35;
  Buf<float> in(kN);
  for (int32_t i = 0; i < kN; ++i)
    in[i] = specials[i % 5];
  Buf<N> out(kN);
  for (RoundMode mode : kModes) {
    Cast(out.t(), in.t(), mode, kN);
    for (int32_t i = 0; i < kN; ++i) {
      if (mode != RoundMode::CAST_NONE && mode != RoundMode::CAST_RINT && i % 5 >= 3) continue;
      EXPECT_EQ(Bits(out[i]), Bits(N(in[i]))) << int(mode) << " at " << i;
    }
  }
}

TEST_P(ConvertTest, FloatToHalfAndBfloat16EveryMode) {
  CheckNarrowing<half>();
  CheckNarrowing<bfloat16>();
}

TEST_P(ConvertTest, WideningIsExact) {
  // Every half and bfloat16 bit pattern (NaNs included) widens as core/float16.h does.
  Buf<half> h(65536);
  Buf<bfloat16> b(65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    h[i] = half::FromBits(static_cast<uint16_t>(i));
    b[i] = bfloat16::FromBits(static_cast<uint16_t>(i));
  }
  Buf<float> f(65536);
  Cast(f.t(), h.t(), RoundMode::CAST_NONE, 65536);
  for (uint32_t i = 0; i < 65536; ++i)
    ASSERT_EQ(Bits(f[i]), Bits(static_cast<float>(h[i]))) << i;
  Cast(f.t(), b.t(), RoundMode::CAST_ROUND, 65536);
  for (uint32_t i = 0; i < 65536; ++i)
    ASSERT_EQ(Bits(f[i]), Bits(static_cast<float>(b[i]))) << i;
  f.ExpectSentinels("widen");
  // half -> bfloat16 and back through the modes.
  Buf<bfloat16> hb(65536);
  for (RoundMode mode : kModes) {
    Cast(hb.t(), h.t(), mode, 65536);
    for (uint32_t i = 0; i < 65536; ++i) {
      if (std::isnan(static_cast<float>(h[i]))) continue;
      ASSERT_EQ(Bits(hb[i]), Bits(RefRound<bfloat16>(static_cast<float>(h[i]), mode))) << i;
    }
  }
  hb.ExpectSentinels("half->bf16");
}

int32_t RefToInt(float x, RoundMode mode) {
  if (std::isnan(x)) return 0;
  double r;
  switch (mode) {
    case RoundMode::CAST_FLOOR:
      r = std::floor(x);
      break;
    case RoundMode::CAST_CEIL:
      r = std::ceil(x);
      break;
    case RoundMode::CAST_TRUNC:
      r = std::trunc(x);
      break;
    case RoundMode::CAST_ROUND:
      r = std::round(x);
      break;  // half away from zero
    default:
      r = std::nearbyint(x);
      break;  // default FE mode: nearest even
  }
  if (r >= 2147483648.0) return INT32_MAX;
  if (r < -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(r);
}

TEST_P(ConvertTest, ToInt32EveryModeTiesNegativesSaturation) {
  std::vector<float> xs = {0.5f,
                           1.5f,
                           2.5f,
                           -0.5f,
                           -1.5f,
                           -2.5f,
                           0.49999997f,
                           -0.49999997f,
                           2.4999998f,
                           -7.5f,
                           1e10f,
                           -1e10f,
                           2147483520.0f,
                           -2147483648.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::quiet_NaN(),
                           -0.0f,
                           8388609.0f};
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  while (xs.size() < 4097)
    xs.push_back(dist(rng));
  for (RoundMode mode : kModes) {
    if (mode == RoundMode::CAST_ODD) continue;
    for (int32_t n : {1, 7, 31, 64, 257, 4097}) {
      Buf<float> in(n);
      std::copy(xs.begin(), xs.begin() + n, in.v.begin());
      Buf<int32_t> out(n);
      Cast(out.t(), in.t(), mode, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], RefToInt(in[i], mode)) << "mode " << int(mode) << " x=" << in[i];
      out.ExpectSentinels("Cast f32->i32");
      // half -> int32 (through the exact widening).
      Buf<half> hin(n);
      for (int32_t i = 0; i < n; ++i)
        hin[i] = half(in[i]);
      Cast(out.t(), hin.t(), mode, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(out[i], RefToInt(static_cast<float>(hin[i]), mode)) << "half";
      out.ExpectSentinels("Cast f16->i32");
    }
  }
}

TEST_P(ConvertTest, FromInt32EveryMode) {
  std::vector<int32_t> xs = {0,        1,         -1,        16777216,  16777217,  16777218,
                             16777219, -16777217, -16777219, INT32_MAX, INT32_MIN, INT32_MAX - 64,
                             2049,     -2049,     65519,     65520,     70000,     -70000};
  std::mt19937 rng(9);
  while (xs.size() < 4097)
    xs.push_back(static_cast<int32_t>(rng()));
  for (RoundMode mode : kModes) {
    for (int32_t n : {1, 7, 31, 64, 257, 4097}) {
      Buf<int32_t> in(n);
      std::copy(xs.begin(), xs.begin() + n, in.v.begin());
      Buf<float> out(n);
      Cast(out.t(), in.t(), mode, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(out[i]), Bits(RefRound<float>(in[i], mode)))
            << "mode " << int(mode) << " v=" << in[i];
      }
      out.ExpectSentinels("Cast i32->f32");
      Buf<half> hout(n);
      Cast(hout.t(), in.t(), mode, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ(Bits(hout[i]), Bits(RefRound<half>(in[i], mode)))
            << "mode " << int(mode) << " v=" << in[i];
      }
      hout.ExpectSentinels("Cast i32->f16");
    }
  }
}

// ---- Compare / Select.

template <class T>
bool RefCompare(CMPMODE m, T a, T b) {
  const auto x = [](T v) {
    if constexpr (std::is_same_v<T, int32_t>)
      return v;
    else
      return ToF(v);
  };
  switch (m) {
    case CMPMODE::LT:
      return x(a) < x(b);
    case CMPMODE::GT:
      return x(a) > x(b);
    case CMPMODE::EQ:
      return x(a) == x(b);
    case CMPMODE::LE:
      return x(a) <= x(b);
    case CMPMODE::GE:
      return x(a) >= x(b);
    default:
      return x(a) != x(b);
  }
}

template <class T>
void CheckCompareSelect() {
  for (int32_t n : kCounts) {
    auto a = Random<T>(n, -8, 8, 3 * n);  // small range: many equal pairs
    auto b = Random<T>(n, -8, 8, 5 * n);
    if constexpr (std::is_same_v<T, int32_t>) {
      for (int32_t i = 0; i < n; i += 3)
        b[i] = a[i];
    } else {
      for (int32_t i = 0; i < n; i += 3)
        b[i] = a[i];
      a[n / 2] = FromF<T>(std::numeric_limits<float>::quiet_NaN());
    }
    const uint32_t bytes = (n + 7) / 8;
    for (CMPMODE m :
         {CMPMODE::LT, CMPMODE::GT, CMPMODE::EQ, CMPMODE::LE, CMPMODE::GE, CMPMODE::NE}) {
      Buf<uint8_t> mask(bytes);
      Compare(mask.t(), a.t(), b.t(), m, n);
      for (int32_t i = 0; i < n; ++i) {
        ASSERT_EQ((mask[i / 8] >> (i % 8)) & 1, RefCompare(m, a[i], b[i]) ? 1 : 0)
            << TypeName<T>() << " mode " << int(m) << " n=" << n << " i=" << i;
      }
      for (uint32_t i = n; i < bytes * 8; ++i)
        ASSERT_EQ((mask[i / 8] >> (i % 8)) & 1, 0) << "bits past count";
      mask.ExpectSentinels("Compare");
      // Select with the mask just computed (tensor-tensor and tensor-scalar).
      Buf<T> d(n);
      Select(d.t(), mask.t(), a.t(), b.t(), SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(Bits(d[i]), Bits(((mask[i / 8] >> (i % 8)) & 1) ? a[i] : b[i]));
      const T s = b[0];
      Select(d.t(), mask.t(), a.t(), s, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
      for (int32_t i = 0; i < n; ++i)
        ASSERT_EQ(Bits(d[i]), Bits(((mask[i / 8] >> (i % 8)) & 1) ? a[i] : s));
      d.ExpectSentinels("Select");
    }
  }
}

TEST_P(ConvertTest, CompareAndSelectAllTypes) {
  CheckCompareSelect<float>();
  CheckCompareSelect<half>();
  CheckCompareSelect<bfloat16>();
  CheckCompareSelect<int32_t>();
}

// ---- Reductions.

template <class T>
void CheckReduce() {
  const bool is_int = std::is_same_v<T, int32_t>;
  struct Shape {
    uint32_t rows, cols;
  };
  for (Shape s :
       {Shape{1, 1}, Shape{3, 33}, Shape{7, 4096}, Shape{2, 4097}, Shape{5, 7}, Shape{1, 257}}) {
    const uint32_t n = s.rows * s.cols;
    auto x = Random<T>(n, is_int ? -2e9f : -10, is_int ? 2e9f : 10, n + 3);
    Buf<T> sums(s.rows), maxs(s.rows), mins(s.rows);
    ReduceSumRows(sums.t(), x.t(), s.rows, s.cols);
    ReduceMaxRows(maxs.t(), x.t(), s.rows, s.cols);
    ReduceMinRows(mins.t(), x.t(), s.rows, s.cols);
    for (uint32_t r = 0; r < s.rows; ++r) {
      const T* row = x.v.data() + r * s.cols;
      if constexpr (std::is_same_v<T, int32_t>) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < s.cols; ++c)
          sum += static_cast<uint32_t>(row[c]);
        ASSERT_EQ(sums[r], static_cast<int32_t>(sum));
        ASSERT_EQ(maxs[r], *std::max_element(row, row + s.cols));
        ASSERT_EQ(mins[r], *std::min_element(row, row + s.cols));
      } else {
        long double sum = 0, abs_sum = 0;
        float mx = ToF(row[0]), mn = ToF(row[0]);
        for (uint32_t c = 0; c < s.cols; ++c) {
          sum += ToF(row[c]);
          abs_sum += std::fabs(ToF(row[c]));
          mx = std::max(mx, ToF(row[c]));
          mn = std::min(mn, ToF(row[c]));
        }
        // fp32 accumulation over >= 16 partial sums: error <= (cols/16 + 8) eps sum|x|; then
        // the final rounding to T.
        const long double tol = (s.cols / 16.0L + 8) * FLT_EPSILON * abs_sum +
                                std::fabs(sum) * (std::is_same_v<T, float> ? 0 : 1.0L / 128);
        ASSERT_LE(std::fabs(ToF(sums[r]) - sum), tol)
            << TypeName<T>() << " row " << r << " of " << s.cols;
        ASSERT_EQ(ToF(maxs[r]), mx);
        ASSERT_EQ(ToF(mins[r]), mn);
      }
    }
    sums.ExpectSentinels("ReduceSumRows");
    maxs.ExpectSentinels("ReduceMaxRows");
    // Whole tensor with index: plant the extreme twice, the first index must win.
    Buf<T> work(1), out(2);
    const uint32_t first = n / 3, second = n - 1;
    x[first] = FromF<T>(is_int ? 2100000000.0f : 1000.0f);
    x[second] = x[first];
    ReduceMax(out.t(), x.t(), work.t(), static_cast<int32_t>(n), true);
    EXPECT_EQ(Bits(out[0]), Bits(x[first]));
    EXPECT_EQ(Bits(out[1]), first) << TypeName<T>() << " n=" << n;
    x[first] = FromF<T>(is_int ? -2100000000.0f : -1000.0f);
    x[second] = x[first];
    ReduceMin(out.t(), x.t(), work.t(), static_cast<int32_t>(n), true);
    EXPECT_EQ(Bits(out[0]), Bits(x[first]));
    EXPECT_EQ(Bits(out[1]), first);
    out.ExpectSentinels("ReduceMin");
    ReduceSum(out.t(), x.t(), work.t(), static_cast<int32_t>(n));
    Buf<T> rows1(1);
    ReduceSumRows(rows1.t(), x.t(), 1, n);
    EXPECT_EQ(Bits(out[0]), Bits(rows1[0]));
  }
}

TEST_P(ReduceTest, SumMaxMinRowsAndWholeAllTypes) {
  CheckReduce<float>();
  CheckReduce<half>();
  CheckReduce<bfloat16>();
  CheckReduce<int32_t>();
}

template <class T>
void CheckSoftMax(double rel_tol) {
  struct Shape {
    uint32_t rows, cols;
  };
  for (Shape s : {Shape{1, 1}, Shape{3, 33}, Shape{7, 4096}, Shape{4, 1000}}) {
    const uint32_t n = s.rows * s.cols;
    auto x = Random<T>(n, -30, 30, n);
    Buf<T> y(n);
    SoftMax(y.t(), x.t(), s.rows, s.cols);
    for (uint32_t r = 0; r < s.rows; ++r) {
      long double mx = -INFINITY, sum = 0;
      for (uint32_t c = 0; c < s.cols; ++c)
        mx = std::max<long double>(mx, ToF(x[r * s.cols + c]));
      for (uint32_t c = 0; c < s.cols; ++c)
        sum += std::exp(ToF(x[r * s.cols + c]) - mx);
      for (uint32_t c = 0; c < s.cols; ++c) {
        const long double want = std::exp(ToF(x[r * s.cols + c]) - mx) / sum;
        // Relative error grows with |x - max| (the rounding of x - max is amplified by exp).
        const long double d = mx - ToF(x[r * s.cols + c]);
        const long double tol =
            want * rel_tol * (4 + d) + (std::is_same_v<T, float> ? 1e-44L : 1e-7L);
        ASSERT_LE(std::fabs(ToF(y[r * s.cols + c]) - want), tol)
            << TypeName<T>() << " " << r << "," << c;
      }
    }
    y.ExpectSentinels("SoftMax");
  }
  // Large inputs do not overflow: max-subtraction.
  Buf<float> big(3), out(3);
  big[0] = 1000.0f;
  big[1] = 1000.0f;
  big[2] = -1000.0f;
  SoftMax(out.t(), big.t(), 1, 3);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[2], 0.0f);
}

TEST_P(ReduceTest, SoftMaxRows) {
  CheckSoftMax<float>(FLT_EPSILON);
  CheckSoftMax<half>(1.0 / 1024);
  CheckSoftMax<bfloat16>(1.0 / 128);
}

INSTANTIATE_TEST_SUITE_P(AllTargets, ConvertTest, ::testing::ValuesIn(CompiledTargets()),
                         TargetParamName);
INSTANTIATE_TEST_SUITE_P(AllTargets, ReduceTest, ::testing::ValuesIn(CompiledTargets()),
                         TargetParamName);

// ---- Checked mode: errors inside launched kernels become the stream's error.

class CheckedScope {
 public:
  explicit CheckedScope(bool on) : previous_(device::CheckedMode()) { device::SetCheckedMode(on); }
  ~CheckedScope() { device::SetCheckedMode(previous_); }

 private:
  bool previous_;
};

// Kernels take no pointers (checked launches accept only device allocations); they wrap block-
// local arrays in tensors that carry the launch's checked flag.
template <class T>
LocalTensor<T> Local(T* p, uint32_t n) {
  return LocalTensor<T>(p, n, TPosition::VECCALC, CheckedLaunch(), nullptr, 0);
}

void AddTooMany(int32_t count) {
  float a[64] = {}, b[32] = {}, c[64] = {};
  Add(Local(c, 64), Local(a, 64), Local(b, 32), count);
}

void AddRepeatOutside(uint32_t mask, uint32_t repeat) {
  static float a[256], b[256], c[256];
  BinaryRepeatParams p;
  p.dstRepStride = 16;
  Add(Local(c, 256), Local(a, 256), Local(b, 256), uint64_t{mask}, static_cast<uint8_t>(repeat), p);
}

void CastOddToInt(int32_t count) {
  float a[8] = {};
  int32_t c[8] = {};
  Cast(Local(c, 8), Local(a, 8), RoundMode::CAST_ODD, count);
}

void CompareSmallMask(int32_t count) {
  float a[64] = {}, b[64] = {};
  uint8_t m[4] = {};
  Compare(Local(m, 4), Local(a, 64), Local(b, 64), CMPMODE::LT, count);
}

std::string RunKernel(void (*kernel)(int32_t), const char* name, int32_t arg) {
  device::Stream stream;
  Status st =
      device::Launch(device::LaunchConfig{1, device::KernelType::kAiv, name}, kernel, stream, arg);
  if (st.ok()) st = stream.Synchronize();
  stream.ResetError();
  return std::string(st.message());
}

TEST(VectorCheckedModeTest, CountBeyondTensorNamesApiAndCounts) {
  CheckedScope checked(true);
  EXPECT_EQ(RunKernel(AddTooMany, "vec_add", 48),
            "kernel 'vec_add' block 0 (AIV): Add: src1: count 48 exceeds the tensor's 32 elements");
  EXPECT_NE(RunKernel(AddTooMany, "vec_add", -1).find("Add: count -1 is negative"),
            std::string::npos);
  EXPECT_EQ(RunKernel(AddTooMany, "vec_add", 32), "");
  EXPECT_NE(RunKernel(CompareSmallMask, "vec_cmp", 64)
                .find("Compare: dst: count 64 needs 8 mask bytes, the tensor has 4"),
            std::string::npos);
  EXPECT_NE(RunKernel(CastOddToInt, "vec_cast", 8).find("Cast: RoundMode CAST_ODD is not defined"),
            std::string::npos);
}

TEST(VectorCheckedModeTest, MaskAndRepeatExtentAreChecked) {
  CheckedScope checked(true);
  device::Stream stream;
  const auto run = [&](uint32_t mask, uint32_t repeat) {
    Status st = device::Launch(device::LaunchConfig{1, device::KernelType::kAiv, "vec_rep"},
                               AddRepeatOutside, stream, mask, repeat);
    if (st.ok()) st = stream.Synchronize();
    stream.ResetError();
    return std::string(st.message());
  };
  EXPECT_NE(run(65, 1).find("Add: mask 65 is outside [1, 64] for 32-bit elements"),
            std::string::npos);
  EXPECT_NE(run(0, 1).find("Add: mask 0 is outside"), std::string::npos);
  // dstRepStride 16 blocks = 128 floats per repeat: 3 repeats end at 2 * 128 + 64 = 320 > 256.
  EXPECT_NE(
      run(64, 3).find("Add: dst: mask + repeat (repeatTimes 3, repStride 16, blkStride 1) touches "
                      "elements up to 320, beyond the tensor's 256 elements"),
      std::string::npos);
  EXPECT_EQ(run(64, 2), "");
}

TEST(VectorCheckedModeTest, FastModeSkipsChecks) {
  CheckedScope fast(false);
  // Same kernel, legal count: runs and reports nothing; the check branch is not taken.
  EXPECT_EQ(RunKernel(AddTooMany, "vec_add", 16), "");
}

}  // namespace
}  // namespace tessera::kernel::testing
