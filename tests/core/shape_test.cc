#include "tessera/core/shape.h"

#include <gtest/gtest.h>

#include "tessera/core/tensor_desc.h"

namespace tessera {
namespace {

TEST(ShapeTest, MakeAndQuery) {
  auto s = Shape::Make({2, 3, 5});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->rank(), 3);
  EXPECT_EQ(s->dim(1), 3);
  EXPECT_EQ(*s->NumElements(), 30);
  EXPECT_EQ(s->ToString(), "[2, 3, 5]");
  EXPECT_EQ(*Shape().NumElements(), 1);  // scalar
  EXPECT_EQ(*Shape::Make({4, 0, 7})->NumElements(), 0);
}

TEST(ShapeTest, RankAndDimLimits) {
  EXPECT_TRUE(Shape::Make({1, 1, 1, 1, 1, 1, 1, 1}).ok());
  auto nine = Shape::Make({1, 1, 1, 1, 1, 1, 1, 1, 1});
  ASSERT_FALSE(nine.ok());
  EXPECT_NE(nine.status().message().find("rank 9 exceeds the maximum 8"), std::string_view::npos);
  auto neg = Shape::Make({3, -1});
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.status().message().find("dim 1 is -1"), std::string_view::npos);
}

TEST(ShapeTest, OverflowIsAnError) {
  auto big = Shape::Make({int64_t{1} << 32, int64_t{1} << 31});
  ASSERT_TRUE(big.ok());
  auto n = big->NumElements();
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(*Shape::Make({int64_t{1} << 31, int64_t{1} << 31})->NumElements(), int64_t{1} << 62);
  EXPECT_FALSE(Shape::Make({int64_t{1} << 31, int64_t{1} << 31, 4})->NumElements().ok());
  // Overflow is detected even when a later dim is zero would not rescue an earlier product.
  EXPECT_FALSE(Shape::Make({INT64_MAX, 2, 0})->NumElements().ok());
}

TEST(ShapeTest, Parse) {
  EXPECT_EQ(*Shape::Parse("16384,4096"), *Shape::Make({16384, 4096}));
  EXPECT_EQ(*Shape::Parse("[2, 3]"), *Shape::Make({2, 3}));
  EXPECT_EQ(Shape::Parse("[]")->rank(), 0);
  EXPECT_EQ(Shape::Parse("")->rank(), 0);
  EXPECT_FALSE(Shape::Parse("2,x").ok());
  EXPECT_FALSE(Shape::Parse("2,,3").ok());
  EXPECT_FALSE(Shape::Parse("[2,3").ok());
  EXPECT_FALSE(Shape::Parse("-1").ok());
}

TEST(TensorDescTest, ContiguousAndStrided) {
  TensorDesc d{DataType::kFloat16, *Shape::Make({4, 6}), Format::kND, {}};
  EXPECT_TRUE(d.Validate().ok());
  EXPECT_TRUE(d.IsContiguous());
  EXPECT_EQ(d.ContiguousStrides(), (std::vector<int64_t>{6, 1}));
  EXPECT_EQ(*d.StorageBytes(), 48);
  d.strides = {8, 1};  // padded rows
  EXPECT_FALSE(d.IsContiguous());
  EXPECT_EQ(*d.StorageBytes(), (3 * 8 + 5 + 1) * 2);
  EXPECT_EQ(d.ToString(), "float16[4, 6] ND");
}

TEST(TensorDescTest, ValidationErrors) {
  TensorDesc d{DataType::kFloat32, *Shape::Make({4, 6}), Format::kND, {1}};
  EXPECT_NE(d.Validate().message().find("1 strides for rank 2"), std::string_view::npos);
  d.strides = {-1, 1};
  EXPECT_FALSE(d.Validate().ok());
  d.strides = {};
  d.dtype = static_cast<DataType>(5);
  EXPECT_NE(d.Validate().message().find("dtype code 5"), std::string_view::npos);
  TensorDesc huge{DataType::kInt64, *Shape::Make({int64_t{1} << 62}), Format::kND, {}};
  EXPECT_EQ(huge.Validate().code(), StatusCode::kOutOfRange);
  TensorDesc empty{DataType::kInt64, *Shape::Make({0, 5}), Format::kND, {}};
  EXPECT_EQ(*empty.StorageBytes(), 0);
}

}  // namespace
}  // namespace tessera
