// OpDef::Reference: the declaration and its validation, and the element access a reference gets
// (ReferenceTensor Get/Set over every dtype: rounding, saturation, bool).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "tessera/runtime/op_def.h"

namespace {

using namespace tessera;
using namespace tessera::runtime;

class RefOp : public OpDef {
 public:
  RefOp() : OpDef("RefOp") {
    Input("x").ParamType(REQUIRED).DataType({DataType::kFloat32});
    Output("y").ParamType(REQUIRED).Follow("x");
    SetTiling([](TilingContext&) { return OkStatus(); });
    AddConfig("x86-64-v2");
  }
};

TEST(OpDefReferenceTest, NoReferenceByDefault) {
  RefOp op;
  EXPECT_FALSE(op.reference());
  EXPECT_TRUE(op.Validate().ok());
}

TEST(OpDefReferenceTest, DeclaredReferenceIsKeptWithItsTolerance) {
  RefOp op;
  op.Reference(
      [](const ReferenceArgs& args) {
        for (int64_t i = 0; i < args.outputs[0].size(); ++i)
          args.outputs[0].Set(i, 2 * args.inputs[0]->Get(i));
        return OkStatus();
      },
      4);
  ASSERT_TRUE(op.Validate().ok());
  EXPECT_EQ(op.reference_ulps(), 4);
  float in[3] = {1, 2.5f, -3}, out[3] = {};
  ReferenceArgs args;
  const TensorDesc desc{DataType::kFloat32, *Shape::Make({3}), Format::kND, {}};
  args.inputs.push_back(ReferenceTensor{desc, in});
  args.outputs.push_back(ReferenceTensor{desc, out});
  ASSERT_TRUE(op.reference()(args).ok());
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 5);
  EXPECT_EQ(out[2], -6);
}

TEST(OpDefReferenceTest, ValueRangeIsKeptAndBadRangesAreRejected) {
  RefOp op;
  EXPECT_EQ(op.inputs()[0].value_range().lo, -100);
  EXPECT_EQ(op.inputs()[0].value_range().hi, 100);
  op.Input("x").ValueRange(0.5, 100, true);
  ASSERT_TRUE(op.Validate().ok());
  EXPECT_EQ(op.inputs()[0].value_range().lo, 0.5);
  EXPECT_TRUE(op.inputs()[0].value_range().random_sign);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  const std::tuple<double, double, bool> bad_ranges[] = {
      {1, 1, false}, {2, 1, false}, {0, kInf, false}, {kNan, 1, false}, {-1, 1, true}};
  for (const auto& [lo, hi, sign] : bad_ranges) {
    RefOp bad;
    bad.Input("x").ValueRange(lo, hi, sign);
    const Status st = bad.Validate();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << lo << " " << hi;
    EXPECT_NE(st.message().find("OpDef RefOp: input x ValueRange("), std::string::npos)
        << st.message();
    EXPECT_NE(st.message().find("expected finite lo < hi"), std::string::npos) << st.message();
  }
}

TEST(OpDefReferenceTest, EmptyFunctionAndBadToleranceAreRejected) {
  RefOp empty;
  empty.Reference(nullptr);
  const Status st = empty.Validate();
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("OpDef RefOp: Reference() was given an empty function"),
            std::string::npos)
      << st.message();
  for (double ulps : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    RefOp op;
    op.Reference([](const ReferenceArgs&) { return OkStatus(); }, ulps);
    const Status bad = op.Validate();
    EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument) << ulps;
    EXPECT_NE(bad.message().find("expected a finite number >= 0"), std::string::npos)
        << bad.message();
  }
}

TEST(OpDefReferenceTest, GetAndSetServeEveryDtype) {
  for (DataType dtype : AllDataTypes()) {
    uint64_t buf[4] = {};
    const ReferenceTensor t{TensorDesc{dtype, *Shape::Make({4}), Format::kND, {}}, buf};
    ASSERT_EQ(t.size(), 4);
    const double v = dtype == DataType::kBool ? 1 : 3;
    t.Set(1, v);
    EXPECT_EQ(t.Get(1), v) << DataTypeName(dtype);
    EXPECT_EQ(t.Get(0), 0) << DataTypeName(dtype) << ": Set wrote outside its element";
    EXPECT_EQ(t.Get(2), 0) << DataTypeName(dtype) << ": Set wrote outside its element";
  }
}

TEST(OpDefReferenceTest, SetRoundsSaturatesAndTruncates) {
  const auto round_trip = [](DataType dtype, double v) {
    uint64_t element = 0;
    WriteElement(dtype, &element, 0, v);
    return ReadElement(dtype, &element, 0);
  };
  EXPECT_EQ(round_trip(DataType::kFloat32, 0.1), static_cast<float>(0.1));
  EXPECT_EQ(round_trip(DataType::kFloat16, 1 + 0x1p-11), 1.0);  // tie to even
  EXPECT_EQ(round_trip(DataType::kFloat16, 1 + 0x1p-10), 1 + 0x1p-10);
  EXPECT_EQ(round_trip(DataType::kBfloat16, 1 + 0x1p-8), 1.0);  // tie to even
  EXPECT_EQ(round_trip(DataType::kBfloat16, 1 + 0x1p-7), 1 + 0x1p-7);
  EXPECT_EQ(round_trip(DataType::kInt8, 300), 127);
  EXPECT_EQ(round_trip(DataType::kInt8, -2.9), -2);
  EXPECT_EQ(round_trip(DataType::kUint8, -5), 0);
  EXPECT_EQ(round_trip(DataType::kInt16, 1e6), 32767);
  EXPECT_EQ(round_trip(DataType::kInt32, -1e12), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(round_trip(DataType::kInt64, 1e30), static_cast<double>(INT64_MAX));
  EXPECT_EQ(round_trip(DataType::kInt32, std::nan("")), 0);
  EXPECT_EQ(round_trip(DataType::kBool, 0.5), 1);
  EXPECT_EQ(round_trip(DataType::kBool, 0), 0);
}

TEST(OpDefReferenceTest, TypedBuffersAreTheElements) {
  half h[2] = {half(1.5f), half(-2.0f)};
  const ReferenceTensor t{TensorDesc{DataType::kFloat16, *Shape::Make({2}), Format::kND, {}}, h};
  EXPECT_EQ(static_cast<float>(t.As<half>()[1]), -2.0f);
  EXPECT_EQ(t.Get(0), 1.5);
}

}  // namespace
