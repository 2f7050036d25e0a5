#include "tessera/core/data_type.h"

#include <gtest/gtest.h>

#include <set>

#include "tessera/core/format.h"

namespace tessera {
namespace {

TEST(DataTypeTest, SizesAndNames) {
  EXPECT_EQ(DataTypeSize(DataType::kFloat32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kFloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kBfloat16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kUint8), 1u);
  EXPECT_EQ(DataTypeSize(DataType::kInt16), 2u);
  EXPECT_EQ(DataTypeSize(DataType::kInt32), 4u);
  EXPECT_EQ(DataTypeSize(DataType::kInt64), 8u);
  EXPECT_EQ(DataTypeSize(DataType::kBool), 1u);
  EXPECT_EQ(DataTypeName(DataType::kBfloat16), "bfloat16");
  EXPECT_EQ(DataTypeCannName(DataType::kFloat32), "DT_FLOAT");
  EXPECT_EQ(DataTypeCannName(DataType::kBfloat16), "DT_BF16");
}

TEST(DataTypeTest, CodesMatchCann) {
  EXPECT_EQ(static_cast<int>(DataType::kFloat32), 0);
  EXPECT_EQ(static_cast<int>(DataType::kFloat16), 1);
  EXPECT_EQ(static_cast<int>(DataType::kBfloat16), 27);
  EXPECT_EQ(static_cast<int>(DataType::kBool), 12);
  EXPECT_TRUE(IsValidDataType(9));
  EXPECT_FALSE(IsValidDataType(5));
  EXPECT_FALSE(IsValidDataType(-1));
}

TEST(DataTypeTest, EveryTypeRoundTripsThroughItsNames) {
  std::set<std::string_view> names;
  for (DataType t : AllDataTypes()) {
    names.insert(DataTypeName(t));
    auto parsed = ParseDataType(DataTypeName(t));
    ASSERT_TRUE(parsed.ok()) << DataTypeName(t);
    EXPECT_EQ(*parsed, t);
    auto cann = ParseDataType(DataTypeCannName(t));
    ASSERT_TRUE(cann.ok()) << DataTypeCannName(t);
    EXPECT_EQ(*cann, t);
    EXPECT_GT(DataTypeSize(t), 0u);
  }
  EXPECT_EQ(names.size(), 9u);
}

TEST(DataTypeTest, AliasesAndCase) {
  EXPECT_EQ(*ParseDataType("FP16"), DataType::kFloat16);
  EXPECT_EQ(*ParseDataType("bf16"), DataType::kBfloat16);
  EXPECT_EQ(*ParseDataType("Float"), DataType::kFloat32);
  EXPECT_EQ(*ParseDataType("half"), DataType::kFloat16);
  EXPECT_EQ(*ParseDataType("int"), DataType::kInt32);
}

TEST(DataTypeTest, UnknownNameListsAccepted) {
  auto r = ParseDataType("float8");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("'float8'"), std::string_view::npos);
  EXPECT_NE(r.status().message().find("bfloat16"), std::string_view::npos);
}

TEST(DataTypeTest, DataTypeOf) {
  static_assert(DataTypeOf<float>::value == DataType::kFloat32);
  static_assert(DataTypeOf<half>::value == DataType::kFloat16);
  static_assert(DataTypeOf<bfloat16>::value == DataType::kBfloat16);
  static_assert(DataTypeOf<int64_t>::value == DataType::kInt64);
  EXPECT_FALSE(IsFloatingPoint(DataType::kInt32));
  EXPECT_TRUE(IsFloatingPoint(DataType::kBfloat16));
}

TEST(FormatTest, NamesAndParse) {
  EXPECT_EQ(FormatName(Format::kND), "ND");
  EXPECT_EQ(*ParseFormat("nd"), Format::kND);
  EXPECT_EQ(*ParseFormat("FORMAT_ND"), Format::kND);
  EXPECT_FALSE(ParseFormat("NZ").ok());
  EXPECT_TRUE(IsValidFormat(2));
  EXPECT_FALSE(IsValidFormat(0));
}

}  // namespace
}  // namespace tessera
