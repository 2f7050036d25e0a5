// Binary ops (Add, Sub, Mul, Div, Maximum, Minimum) on every dtype, flat sizes and broadcast
// shapes, against a scalar reference computed with independent broadcast indexing; exact.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ops_test_util.h"

namespace tessera::ops::testing {
namespace {

using Dims = std::vector<int64_t>;

// Every op in fp32 (the kernels' compute type for 16-bit floats), rounded once to T; int32 wraps.
template <class T>
T Reference(const std::string& op, T a, T b) {
  if constexpr (std::is_same_v<T, int32_t>) {
    const auto ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
    if (op == "Add") return static_cast<int32_t>(ua + ub);
    if (op == "Sub") return static_cast<int32_t>(ua - ub);
    if (op == "Mul") return static_cast<int32_t>(ua * ub);
    if (op == "Maximum") return a > b ? a : b;
    return a < b ? a : b;
  } else {
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    float r = 0;
    if (op == "Add") r = fa + fb;
    if (op == "Sub") r = fa - fb;
    if (op == "Mul") r = fa * fb;
    if (op == "Div") r = fa / fb;
    if (op == "Maximum") r = fa > fb ? fa : fb;  // x86 max: the second operand on ties and NaN
    if (op == "Minimum") r = fa < fb ? fa : fb;
    return T(r);
  }
}

// Flat index into `in` (right-aligned under `out`, numpy rule) of output element `flat`.
int64_t SourceIndex(const Dims& in, const Dims& out, int64_t flat) {
  int64_t idx = 0, stride = 1;
  for (int i = static_cast<int>(out.size()) - 1; i >= 0; --i) {
    const int64_t coord = flat % out[static_cast<size_t>(i)];
    flat /= out[static_cast<size_t>(i)];
    const int j = i - static_cast<int>(out.size() - in.size());
    if (j < 0) continue;
    const int64_t d = in[static_cast<size_t>(j)];
    if (d != 1) idx += coord * stride;
    stride *= d;
  }
  return idx;
}

Dims BroadcastDims(const Dims& a, const Dims& b) {
  Dims out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

struct ShapeCase {
  Dims a, b;
};

const std::vector<ShapeCase> kShapes = {
    {{1}, {1}},
    {{7}, {7}},
    {{4097}, {4097}},
    {{1000003}, {1000003}},
    {{2, 3, 4}, {2, 3, 4}},
    {{3, 1, 5}, {4, 5}},
    {{1}, {7, 33}},    // x1 scalar
    {{7, 33}, {1}},    // x2 scalar
    {{}, {3}},         // rank-0 scalar
    {{4, 1}, {1, 5}},  // both broadcast, x1 along the row
    {{2, 1, 3, 1}, {1, 4, 1, 5}},
    {{100, 1, 64}, {1, 50, 64}},  // whole rows batched in tiles, dense runs
    {{513, 1}, {513, 700}},       // inner broadcast by Duplicate
    {{2, 20000}, {1, 20000}},     // rows longer than a tile: chunked
    {{3, 20000}, {3, 1}},
    {{1, 2, 1, 2, 1, 2, 1, 3}, {2, 1, 2, 1, 2, 1, 2, 3}},  // rank 8
    {{0, 3}, {1, 3}},                                      // empty output
};

template <class T>
void CheckOp(const std::string& op, const ShapeCase& sc, bool checked, uint32_t seed) {
  SCOPED_TRACE(op + " " + std::string(DataTypeName(DataTypeOf<T>::value)) + " " +
               Desc(DataTypeOf<T>::value, sc.a).shape.ToString() + " + " +
               Desc(DataTypeOf<T>::value, sc.b).shape.ToString() +
               (checked ? " checked" : " fast"));
  const Dims out = BroadcastDims(sc.a, sc.b);
  const bool is_int = std::is_same_v<T, int32_t>;
  const double lo = is_int ? -2147483648.0 : -100.0, hi = is_int ? 2147483647.0 : 100.0;
  const std::vector<T> a = Random<T>(static_cast<size_t>(Numel(sc.a)), lo, hi, seed);
  const std::vector<T> b = Random<T>(static_cast<size_t>(Numel(sc.b)), lo, hi, seed + 1);
  const DataType dt = DataTypeOf<T>::value;
  CheckedScope scope(checked);
  auto r = RunOp(op, {Desc(dt, sc.a), Desc(dt, sc.b)}, {ToBytes(a), ToBytes(b)}, Desc(dt, out));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<T> y = FromBytes<T>(r->y);
  ASSERT_EQ(static_cast<int64_t>(y.size()), Numel(out));
  int64_t wrong = 0, first = -1;
  for (int64_t i = 0; i < Numel(out); ++i) {
    const T want = Reference<T>(op, a[static_cast<size_t>(SourceIndex(sc.a, out, i))],
                                b[static_cast<size_t>(SourceIndex(sc.b, out, i))]);
    if (!SameValue(y[static_cast<size_t>(i)], want)) {
      if (first < 0) first = i;
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << "first wrong element " << first << " (tiling key " << r->tiling_key
                      << ", block dim " << r->block_dim << ")";
}

using BinaryParam = std::tuple<std::string, DataType>;

class BinaryOpTest : public ::testing::TestWithParam<BinaryParam> {};

// Every shape; odd-numbered shapes run in checked mode, so every op and dtype passes its checks on
// flat, scalar and general paths.
TEST_P(BinaryOpTest, MatchesReferenceOnEveryShape) {
  const auto& [op, dtype] = GetParam();
  for (size_t s = 0; s < kShapes.size(); ++s) {
    const bool checked = s % 2 == 1;
    const auto seed = static_cast<uint32_t>(s * 7 + 1);
    switch (dtype) {
      case DataType::kFloat32:
        CheckOp<float>(op, kShapes[s], checked, seed);
        break;
      case DataType::kFloat16:
        CheckOp<half>(op, kShapes[s], checked, seed);
        break;
      case DataType::kBfloat16:
        CheckOp<bfloat16>(op, kShapes[s], checked, seed);
        break;
      default:
        CheckOp<int32_t>(op, kShapes[s], checked, seed);
        break;
    }
  }
}

std::vector<BinaryParam> BinaryParams() {
  std::vector<BinaryParam> params;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum"}) {
    for (DataType dt :
         {DataType::kFloat32, DataType::kFloat16, DataType::kBfloat16, DataType::kInt32}) {
      if (dt == DataType::kInt32 && std::string(op) == "Div") continue;
      params.emplace_back(op, dt);
    }
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryOpTest, ::testing::ValuesIn(BinaryParams()),
                         [](const ::testing::TestParamInfo<BinaryParam>& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(DataTypeName(std::get<1>(info.param)));
                         });

// The tiling key is the dtype code whatever the broadcast (one elewise kernel per dtype).
TEST(BinaryTilingTest, KeyIsTheDtypeForEveryBroadcast) {
  for (const ShapeCase& c : {ShapeCase{{5, 6}, {5, 6}}, ShapeCase{{5, 6}, {1}},
                             ShapeCase{{}, {5, 6}}, ShapeCase{{5, 1}, {6}}}) {
    const Dims out = BroadcastDims(c.a, c.b);
    const auto a = Random<half>(static_cast<size_t>(Numel(c.a)), -8, 8, 5);
    const auto b = Random<half>(static_cast<size_t>(Numel(c.b)), -8, 8, 6);
    auto r = RunOp("Add", {Desc(DataType::kFloat16, c.a), Desc(DataType::kFloat16, c.b)},
                   {ToBytes(a), ToBytes(b)}, Desc(DataType::kFloat16, out));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->tiling_key, static_cast<uint64_t>(DataType::kFloat16));
    const auto y = FromBytes<half>(r->y);
    for (int64_t i = 0; i < Numel(out); ++i) {
      ASSERT_TRUE(SameValue(y[static_cast<size_t>(i)],
                            Reference<half>("Add", a[static_cast<size_t>(SourceIndex(c.a, out, i))],
                                            b[static_cast<size_t>(SourceIndex(c.b, out, i))])))
          << i;
    }
  }
}

// 48 vector cores (an NPU-like count): the split uses them all on a large input and every
// element is still written exactly once.
TEST(BinaryTilingTest, ManyCoresSplitLargeInputs) {
  runtime::PlatformInfo platform = CurrentPlatform();
  platform.aiv_cores = 48;
  // Large enough that every core gets more than the minimum share of a launch.
  for (const ShapeCase& sc : {ShapeCase{{2000003}, {2000003}}, ShapeCase{{2001, 1000}, {1000}}}) {
    const Dims out = BroadcastDims(sc.a, sc.b);
    const auto a = Random<float>(static_cast<size_t>(Numel(sc.a)), -1, 1, 3);
    const auto b = Random<float>(static_cast<size_t>(Numel(sc.b)), -1, 1, 4);
    auto r = RunOp("Sub", {Desc(DataType::kFloat32, sc.a), Desc(DataType::kFloat32, sc.b)},
                   {ToBytes(a), ToBytes(b)}, Desc(DataType::kFloat32, out), {}, platform);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->block_dim, 48u);
    const auto y = FromBytes<float>(r->y);
    for (int64_t i = 0; i < Numel(out); ++i) {
      ASSERT_EQ(y[static_cast<size_t>(i)], a[static_cast<size_t>(SourceIndex(sc.a, out, i))] -
                                               b[static_cast<size_t>(SourceIndex(sc.b, out, i))])
          << i;
    }
  }
}

TEST(BinaryErrorTest, UnbroadcastableShapesNameBothShapes) {
  const Status st =
      TilingOnly("Add", {Desc(DataType::kFloat32, {3, 2}), Desc(DataType::kFloat32, {4, 2})},
                 Desc(DataType::kFloat32, {4, 2}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(st, "Failed to execute tiling function of Add")) << st.ToString();
  EXPECT_TRUE(Contains(st, "x1 [3, 2] and x2 [4, 2] cannot be broadcast")) << st.ToString();
  EXPECT_TRUE(Contains(st, "dimension -2 is 3 in x1 and 4 in x2")) << st.ToString();
}

TEST(BinaryErrorTest, WrongOutputShapeNamesExpectedShape) {
  const Status st =
      TilingOnly("Mul", {Desc(DataType::kFloat16, {3, 1, 5}), Desc(DataType::kFloat16, {4, 5})},
                 Desc(DataType::kFloat16, {4, 5}));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(st,
                       "output y has shape [4, 5], but broadcasting x1 [3, 1, 5] and x2 [4, "
                       "5] gives [3, 4, 5]"))
      << st.ToString();
}

TEST(BinaryErrorTest, MixedDtypesAndUnsupportedDtypesAreRejected) {
  Status st = TilingOnly("Add", {Desc(DataType::kFloat32, {4}), Desc(DataType::kFloat16, {4})},
                         Desc(DataType::kFloat32, {4}));
  EXPECT_TRUE(Contains(st, "x1, x2 and y must have one dtype, got float32, float16 and float32"))
      << st.ToString();
  st = TilingOnly("Div", {Desc(DataType::kInt32, {4}), Desc(DataType::kInt32, {4})},
                  Desc(DataType::kInt32, {4}));
  EXPECT_TRUE(Contains(st, "Div: dtype int32 is not supported")) << st.ToString();
}

TEST(BinaryErrorTest, NonContiguousOutputIsRejected) {
  TensorDesc y = Desc(DataType::kFloat32, {4, 5});
  y.strides = {1, 4};  // a transposed view
  const Status st =
      TilingOnly("Add", {Desc(DataType::kFloat32, {4, 5}), Desc(DataType::kFloat32, {4, 5})}, y);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_TRUE(Contains(st, "y float32[4, 5] ND has non-contiguous strides [1, 4]"))
      << st.ToString();
}

}  // namespace
}  // namespace tessera::ops::testing
