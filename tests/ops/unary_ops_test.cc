// Unary ops (Abs, Exp, Log, Sqrt, Rsqrt, Relu, Sigmoid, Adds, Muls) on every dtype and the sizes
// 1, 7, 4097 and 1000003: exact ops bit for bit, transcendental ones against long double.
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ops_test_util.h"

namespace tessera::ops::testing {
namespace {

constexpr float kValue = 3.25f;  // Adds/Muls attribute; an int32 value would need to be integral
constexpr float kIntValue = -7.0f;

bool IsExact(const std::string& op) {
  return op != "Exp" && op != "Log" && op != "Rsqrt" && op != "Sigmoid";
}

// Exact ops: fp32 result rounded once to T (Adds/Muls first round the attribute to T, as Ascend
// C's scalar of the tensor's type); int32 wraps.
template <class T>
T ExactReference(const std::string& op, T x) {
  if constexpr (std::is_same_v<T, int32_t>) {
    const auto ux = static_cast<uint32_t>(x);
    if (op == "Abs") return x < 0 ? static_cast<int32_t>(0u - ux) : x;
    if (op == "Relu") return x < 0 ? 0 : x;
    if (op == "Adds") return static_cast<int32_t>(ux + static_cast<uint32_t>(int32_t{-7}));
    return static_cast<int32_t>(ux * static_cast<uint32_t>(int32_t{-7}));
  } else {
    const float f = static_cast<float>(x), v = static_cast<float>(T(kValue));
    if (op == "Abs") return T(std::fabs(f));
    if (op == "Relu") return T(f < 0 ? 0.0f : f);
    if (op == "Sqrt") return T(std::sqrt(f));
    if (op == "Adds") return T(f + v);
    return T(f * v);
  }
}

long double TranscendentalReference(const std::string& op, long double x) {
  if (op == "Exp") return std::exp(x);
  if (op == "Log") return std::log(x);
  if (op == "Rsqrt") return 1.0L / std::sqrt(x);
  return 1.0L / (1.0L + std::exp(-x));
}

// Input ranges inside each op's domain and T's range (e^10 < 65504 for float16).
std::pair<double, double> Range(const std::string& op, bool is_int) {
  if (is_int) return {-2147483648.0, 2147483647.0};
  if (op == "Exp") return {-10, 10};
  if (op == "Log" || op == "Rsqrt") return {1e-3, 1e3};
  if (op == "Sqrt") return {0, 1e4};
  if (op == "Sigmoid") return {-20, 20};
  return {-100, 100};
}

template <class T>
void CheckOp(const std::string& op, int64_t n, bool checked) {
  SCOPED_TRACE(op + " " + std::string(DataTypeName(DataTypeOf<T>::value)) +
               " n=" + std::to_string(n) + (checked ? " checked" : " fast"));
  const bool is_int = std::is_same_v<T, int32_t>;
  const auto [lo, hi] = Range(op, is_int);
  const std::vector<T> x = Random<T>(static_cast<size_t>(n), lo, hi, static_cast<uint32_t>(n));
  std::map<std::string, runtime::AttrValue> attrs;
  if (op == "Adds" || op == "Muls") attrs["value"] = is_int ? kIntValue : kValue;
  const DataType dt = DataTypeOf<T>::value;
  CheckedScope scope(checked);
  auto r = RunOp(op, {Desc(dt, {n})}, {ToBytes(x)}, Desc(dt, {n}), attrs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<T> y = FromBytes<T>(r->y);
  ASSERT_EQ(static_cast<int64_t>(y.size()), n);
  int64_t wrong = 0, first = -1;
  for (size_t i = 0; i < y.size(); ++i) {
    bool ok = false;
    if constexpr (std::is_same_v<T, int32_t>) {
      ok = y[i] == ExactReference<T>(op, x[i]);
    } else if (IsExact(op)) {
      ok = SameValue(y[i], ExactReference<T>(op, x[i]));
    } else {
      ok = Close(y[i], TranscendentalReference(op, static_cast<float>(x[i])));
    }
    if (!ok && first < 0) first = static_cast<int64_t>(i);
    wrong += !ok;
  }
  EXPECT_EQ(wrong, 0) << "first wrong element " << first << ": x = "
                      << (first < 0 ? 0.0 : static_cast<double>(x[static_cast<size_t>(first)]))
                      << ", y = "
                      << (first < 0 ? 0.0 : static_cast<double>(y[static_cast<size_t>(first)]));
}

using UnaryParam = std::tuple<std::string, DataType>;

class UnaryOpTest : public ::testing::TestWithParam<UnaryParam> {};

// Sizes 7 and 1000003 run in checked mode.
TEST_P(UnaryOpTest, MatchesReferenceOnEverySize) {
  const auto& [op, dtype] = GetParam();
  int s = 0;
  for (int64_t n : {1, 7, 4097, 1000003}) {
    const bool checked = s++ % 2 == 1;
    switch (dtype) {
      case DataType::kFloat32:
        CheckOp<float>(op, n, checked);
        break;
      case DataType::kFloat16:
        CheckOp<half>(op, n, checked);
        break;
      case DataType::kBfloat16:
        CheckOp<bfloat16>(op, n, checked);
        break;
      default:
        CheckOp<int32_t>(op, n, checked);
        break;
    }
  }
}

std::vector<UnaryParam> UnaryParams() {
  std::vector<UnaryParam> params;
  for (const char* op : {"Abs", "Exp", "Log", "Sqrt", "Rsqrt", "Relu", "Sigmoid", "Adds", "Muls"}) {
    const std::string name = op;
    const bool has_int = name == "Abs" || name == "Relu" || name == "Adds" || name == "Muls";
    for (DataType dt :
         {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16, DataType::kInt32}) {
      if (dt != DataType::kInt32 || has_int) params.emplace_back(name, dt);
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryOpTest, ::testing::ValuesIn(UnaryParams()),
                         [](const ::testing::TestParamInfo<UnaryParam>& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(DataTypeName(std::get<1>(info.param)));
                         });

TEST(UnaryOpTest, EmptyTensorLaunchesOneIdleCore) {
  auto r = RunOp("Exp", {Desc(DataType::kFloat32, {0, 4})}, {{}}, Desc(DataType::kFloat32, {0, 4}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->block_dim, 1u);
  EXPECT_TRUE(r->y.empty());
}

TEST(UnaryErrorTest, MissingValueAttrIsReported) {
  const Status st =
      TilingOnly("Adds", {Desc(DataType::kFloat32, {8})}, Desc(DataType::kFloat32, {8}));
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st, "Failed to execute tiling function of Adds")) << st.ToString();
  EXPECT_TRUE(Contains(st, "value")) << st.ToString();
  // The op definition rejects the call before tiling too.
  EXPECT_FALSE(MakeOp("Muls")->ResolveAttrs({}).ok());
}

TEST(UnaryErrorTest, NonIntegralValueForInt32IsRejected) {
  const Status st = TilingOnly("Muls", {Desc(DataType::kInt32, {8})}, Desc(DataType::kInt32, {8}),
                               {{"value", 2.5f}});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(st, "is not an int32 value")) << st.ToString();
}

TEST(UnaryErrorTest, WrongOutputShapeOrDtypeIsRejected) {
  Status st = TilingOnly("Relu", {Desc(DataType::kFloat32, {8})}, Desc(DataType::kFloat32, {4, 2}));
  EXPECT_TRUE(Contains(st, "output y has shape [4, 2], expected the shape of x [8]"))
      << st.ToString();
  st = TilingOnly("Relu", {Desc(DataType::kFloat32, {8})}, Desc(DataType::kFloat16, {8}));
  EXPECT_TRUE(Contains(st, "x and y must have one dtype, got float32 and float16"))
      << st.ToString();
  st = TilingOnly("Exp", {Desc(DataType::kInt32, {8})}, Desc(DataType::kInt32, {8}));
  EXPECT_TRUE(Contains(st, "Exp: dtype int32 is not supported")) << st.ToString();
}

}  // namespace
}  // namespace tessera::ops::testing
