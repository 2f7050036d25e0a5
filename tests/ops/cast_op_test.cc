// Cast between float32, float16, bfloat16 and int32 (every pair, identity included), sizes 1, 7,
// 4097 and 1000003, bit for bit against references built from core/float16.h and long double.
#include <climits>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "ops_test_util.h"

namespace tessera::ops::testing {
namespace {

// Correctly rounded (nearest even) bfloat16 of an integer: scale to 8 significant bits in long
// double, round, scale back (exact, then representable in float and bfloat16).
bfloat16 IntToBfloat16(int32_t v) {
  if (v == 0) return bfloat16(0.0f);
  const long double x = v;
  const int e = std::ilogb(x);
  const long double scale = std::ldexp(1.0L, e - 7);
  const long double q = std::nearbyint(x / scale) * scale;  // default mode: nearest even
  return bfloat16(static_cast<float>(q));
}

// Truncation toward zero, saturating, NaN -> 0.
int32_t FloatToInt(float f) {
  if (f != f) return 0;
  if (f >= 2147483648.0f) return INT32_MAX;
  if (f < -2147483648.0f) return INT32_MIN;
  return static_cast<int32_t>(f);
}

template <class S, class D>
D Reference(S s) {
  if constexpr (std::is_same_v<S, D>) {
    return s;
  } else if constexpr (std::is_same_v<D, int32_t>) {
    return FloatToInt(static_cast<float>(s));
  } else if constexpr (std::is_same_v<S, int32_t> && std::is_same_v<D, bfloat16>) {
    return IntToBfloat16(s);
  } else if constexpr (std::is_same_v<S, int32_t>) {
    // float(int) rounds to nearest even; half(float) is then exact wherever half is finite.
    return D(static_cast<float>(s));
  } else {
    return D(static_cast<float>(s));  // widening is exact; one rounding to D
  }
}

// Every other element small (fractions: truncation and 16-bit rounding, exact in float16), the
// rest over a wide range (rounding of large integers, saturation to int32, float16 overflow).
template <class T>
std::vector<T> Inputs(size_t n, uint32_t seed) {
  const bool is_int = std::is_same_v<T, int32_t>;
  std::vector<T> x = Random<T>(n, is_int ? INT32_MIN : -3e9, is_int ? INT32_MAX : 3e9, seed);
  const std::vector<T> small = Random<T>(n, is_int ? -70000 : -100, is_int ? 70000 : 100, seed + 1);
  for (size_t i = 0; i < n; i += 2)
    x[i] = small[i];
  return x;
}

template <class S, class D>
void CheckCast(int64_t n, bool checked) {
  const DataType src = DataTypeOf<S>::value, dst = DataTypeOf<D>::value;
  SCOPED_TRACE(std::string(DataTypeName(src)) + " -> " + std::string(DataTypeName(dst)) +
               " n=" + std::to_string(n) + (checked ? " checked" : " fast"));
  std::vector<S> x = Inputs<S>(static_cast<size_t>(n), static_cast<uint32_t>(n));
  if constexpr (!std::is_same_v<S, int32_t>) {
    if (n >= 7) {  // edges: NaN, infinities, and values that truncate toward zero
      x[0] = S(NAN), x[1] = S(INFINITY), x[2] = S(-INFINITY), x[3] = S(-1.5f), x[4] = S(2.75f);
    }
  }
  CheckedScope scope(checked);
  auto r = RunOp("Cast", {Desc(src, {n})}, {ToBytes(x)}, Desc(dst, {n}),
                 {{"dst_type", static_cast<int64_t>(dst)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->tiling_key, static_cast<uint64_t>(src) | static_cast<uint64_t>(dst) << 8);
  const std::vector<D> y = FromBytes<D>(r->y);
  ASSERT_EQ(static_cast<int64_t>(y.size()), n);
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < y.size(); ++i) {
    const bool ok = SameValue(y[i], Reference<S, D>(x[i]));
    if (!ok && first < 0) first = static_cast<int64_t>(i);
    wrong += !ok;
  }
  EXPECT_EQ(wrong, 0) << "first wrong element " << first;
}

template <class S>
void CheckFrom(DataType dst, int64_t n, bool checked) {
  switch (dst) {
    case DataType::kFloat32:
      CheckCast<S, float>(n, checked);
      break;
    case DataType::kFloat16:
      CheckCast<S, half>(n, checked);
      break;
    case DataType::kBfloat16:
      CheckCast<S, bfloat16>(n, checked);
      break;
    default:
      CheckCast<S, int32_t>(n, checked);
      break;
  }
}

using CastParam = std::tuple<DataType, DataType>;
class CastOpTest : public ::testing::TestWithParam<CastParam> {};

TEST_P(CastOpTest, MatchesReferenceOnEverySize) {
  const auto& [src, dst] = GetParam();
  int s = 0;
  for (int64_t n : {1, 7, 4097, 1000003}) {
    const bool checked = s++ % 2 == 1;
    switch (src) {
      case DataType::kFloat32:
        CheckFrom<float>(dst, n, checked);
        break;
      case DataType::kFloat16:
        CheckFrom<half>(dst, n, checked);
        break;
      case DataType::kBfloat16:
        CheckFrom<bfloat16>(dst, n, checked);
        break;
      default:
        CheckFrom<int32_t>(dst, n, checked);
        break;
    }
  }
}

const DataType kTypes[] = {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16,
                           DataType::kInt32};

INSTANTIATE_TEST_SUITE_P(Pairs, CastOpTest,
                         ::testing::Combine(::testing::ValuesIn(kTypes),
                                            ::testing::ValuesIn(kTypes)),
                         [](const ::testing::TestParamInfo<CastParam>& info) {
                           return std::string(DataTypeName(std::get<0>(info.param))) + "_to_" +
                                  std::string(DataTypeName(std::get<1>(info.param)));
                         });

TEST(CastErrorTest, DstTypeMustBeSupportedAndMatchOutput) {
  Status st = TilingOnly("Cast", {Desc(DataType::kFloat32, {4})}, Desc(DataType::kFloat16, {4}),
                         {{"dst_type", int64_t{99}}});
  EXPECT_TRUE(Contains(st,
                       "dst_type 99 is not a supported DataType code; expected one of "
                       "float32 (0), float16 (1), bfloat16 (27), int32 (3)"))
      << st.ToString();
  st = TilingOnly("Cast", {Desc(DataType::kFloat32, {4})}, Desc(DataType::kFloat16, {4}),
                  {{"dst_type", static_cast<int64_t>(DataType::kInt32)}});
  EXPECT_TRUE(Contains(st, "dst_type is int32 but output y is float16")) << st.ToString();
  st = TilingOnly("Cast", {Desc(DataType::kFloat32, {4})}, Desc(DataType::kFloat16, {4}));
  EXPECT_TRUE(Contains(st, "dst_type")) << st.ToString();
  st = TilingOnly("Cast", {Desc(DataType::kInt8, {4})}, Desc(DataType::kFloat16, {4}),
                  {{"dst_type", static_cast<int64_t>(DataType::kFloat16)}});
  EXPECT_TRUE(Contains(st, "input dtype int8 is not supported")) << st.ToString();
}

}  // namespace
}  // namespace tessera::ops::testing
