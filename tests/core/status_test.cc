#include "tessera/core/status.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

TEST(StatusTest, OkCarriesNoMessage) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_EQ(ok.message(), "");
  EXPECT_EQ(ok.ToString(), "OK");
}

TEST(StatusTest, ErrorKeepsCodeAndMessage) {
  Status s = InvalidArgument("blockDim is 0");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "blockDim is 0");
  EXPECT_EQ(s.ToString(), "InvalidArgument: blockDim is 0");
  EXPECT_EQ(s, InvalidArgument("blockDim is 0"));
  EXPECT_FALSE(s == NotFound("blockDim is 0"));
}

TEST(StatusTest, EveryFactoryHasItsCode) {
  EXPECT_EQ(NotFound("x").code(), StatusCode::kNotFound);
  EXPECT_EQ(AlreadyExists("x").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(OutOfMemory("x").code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(OutOfRange("x").code(), StatusCode::kOutOfRange);
  EXPECT_EQ(FailedPrecondition("x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Unimplemented("x").code(), StatusCode::kUnimplemented);
  EXPECT_EQ(KernelError("x").code(), StatusCode::kKernelError);
  EXPECT_EQ(NotReady("x").code(), StatusCode::kNotReady);
  EXPECT_EQ(Internal("x").code(), StatusCode::kInternal);
  EXPECT_EQ(StatusCodeName(StatusCode::kKernelError), "KernelError");
}

Result<int> Half(int v) {
  if (v % 2) return InvalidArgument("odd");
  return v / 2;
}

Status UseMacros(int v, int* out) {
  TESSERA_ASSIGN_OR_RETURN(int h, Half(v));
  TESSERA_RETURN_IF_ERROR(h > 10 ? OutOfRange("too big") : OkStatus());
  *out = h;
  return OkStatus();
}

TEST(ResultTest, ValueOrStatus) {
  Result<int> good = Half(8);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  EXPECT_TRUE(good.status().ok());
  Result<int> bad = Half(7);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "odd");
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(ResultTest, OkStatusIsNotAValue) {
  Result<int> r{OkStatus()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(ResultTest, MacrosPropagate) {
  int out = 0;
  EXPECT_TRUE(UseMacros(8, &out).ok());
  EXPECT_EQ(out, 4);
  EXPECT_EQ(UseMacros(7, &out).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(UseMacros(40, &out).code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace tessera
