// CANN's op API as an application calls it: aclnnAdd of the built-in package and the aclnn
// functions generated for a custom package built from a vendor-style op project (op_project/),
// against scalar references on random data; and the handle and error paths.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnn_add_custom.h"
#include "aclnn_leaky_relu_custom.h"
#include "aclnnop/aclnn_add.h"

namespace {

std::string RecentError() {
  const char* m = aclGetRecentErrMsg();
  return m == nullptr ? "" : m;
}

class AclnnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(aclnnInit(nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    for (void* p : device_)
      EXPECT_EQ(aclrtFree(p), ACL_SUCCESS);
    for (aclTensor* t : tensors_)
      EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclnnFinalize(), ACLNN_SUCCESS);
  }

  // A device tensor holding `host` (shape {n} unless given).
  template <class T>
  aclTensor* Tensor(const std::vector<T>& host, aclDataType dtype,
                    std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(host.size())};
    void* d = nullptr;
    const size_t bytes = host.size() * sizeof(T);
    EXPECT_EQ(aclrtMalloc(&d, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(d, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    device_.push_back(d);
    aclTensor* t = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND,
                                   shape.data(), shape.size(), d);
    EXPECT_NE(t, nullptr) << RecentError();
    tensors_.push_back(t);
    return t;
  }
  template <class T>
  std::vector<T> Read(const aclTensor* t, size_t n) {
    void* addr = devices_of(t);
    std::vector<T> out(n);
    EXPECT_EQ(
        aclrtMemcpy(out.data(), n * sizeof(T), addr, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_SUCCESS);
    return out;
  }
  void* devices_of(const aclTensor* t) {
    for (size_t i = 0; i < tensors_.size(); ++i)
      if (tensors_[i] == t) return device_[i];
    return nullptr;
  }
  // Stage 2 with a workspace of the size stage 1 asked for.
  void Run(aclnnStatus (*stage2)(void*, uint64_t, aclOpExecutor*, aclrtStream), uint64_t ws,
           aclOpExecutor* exec) {
    void* w = nullptr;
    if (ws > 0) ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ASSERT_EQ(stage2(w, ws, exec, stream_), ACLNN_SUCCESS) << RecentError();
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS) << RecentError();
    if (w != nullptr) EXPECT_EQ(aclrtFree(w), ACL_SUCCESS);
  }

  aclrtStream stream_ = nullptr;
  std::vector<void*> device_;
  std::vector<aclTensor*> tensors_;
};

TEST_F(AclnnTest, BuiltinAddMatchesAScalarLoop) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-100, 100);
  for (int64_t n : {1, 7, 31, 4097, 1000003}) {
    std::vector<float> x(n), y(n), z(n, 0.0f);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = dist(rng);
      y[i] = dist(rng);
    }
    aclTensor* tx = Tensor(x, ACL_FLOAT);
    aclTensor* ty = Tensor(y, ACL_FLOAT);
    aclTensor* tz = Tensor(z, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    ASSERT_EQ(aclnnAddGetWorkspaceSize(tx, ty, tz, &ws, &exec), ACLNN_SUCCESS) << RecentError();
    Run(aclnnAdd, ws, exec);
    const auto got = Read<float>(tz, n);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], x[i] + y[i]) << "n=" << n << " i=" << i;
  }
}

TEST_F(AclnnTest, CustomAddCustomFromAVendorOpProject) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-8, 8);
  for (int64_t rows : {1, 7, 31}) {
    const int64_t cols = 33;
    const int64_t n = rows * cols;
    std::vector<aclFloat16> x(n), y(n), z(n, 0);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = aclFloatToFloat16(dist(rng));
      y[i] = aclFloatToFloat16(dist(rng));
    }
    aclTensor* tx = Tensor(x, ACL_FLOAT16, {rows, cols});
    aclTensor* ty = Tensor(y, ACL_FLOAT16, {rows, cols});
    aclTensor* tz = Tensor(z, ACL_FLOAT16, {rows, cols});
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    ASSERT_EQ(aclnnAddCustomGetWorkspaceSize(tx, ty, tz, &ws, &exec), ACLNN_SUCCESS)
        << RecentError();
    Run(aclnnAddCustom, ws, exec);
    const auto got = Read<aclFloat16>(tz, n);
    for (int64_t i = 0; i < n; ++i) {
      const float ref = aclFloat16ToFloat(aclFloatToFloat16(static_cast<float>(
          static_cast<double>(aclFloat16ToFloat(x[i])) + aclFloat16ToFloat(y[i]))));
      ASSERT_EQ(aclFloat16ToFloat(got[i]), ref) << "i=" << i;
    }
  }
}

TEST_F(AclnnTest, AttributeByIndexAndTilingKeyByDtype) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-50, 50);
  for (int64_t n : {1, 7, 4097}) {
    const double slope = 0.125 + (rng() % 100) / 100.0;
    std::vector<float> x(n), y(n, 0.0f);
    std::vector<aclFloat16> xh(n), yh(n, 0);
    for (int64_t i = 0; i < n; ++i) {
      x[i] = dist(rng);
      xh[i] = aclFloatToFloat16(x[i]);
    }
    aclTensor* tx = Tensor(x, ACL_FLOAT);
    aclTensor* ty = Tensor(y, ACL_FLOAT);
    aclTensor* txh = Tensor(xh, ACL_FLOAT16);
    aclTensor* tyh = Tensor(yh, ACL_FLOAT16);
    uint64_t ws = 0;
    aclOpExecutor* exec = nullptr;
    aclIntArray* any = aclCreateIntArray(nullptr, 0);
    aclIntArray* exact = aclCreateIntArray(&n, 1);
    ASSERT_EQ(aclnnLeakyReluCustomGetWorkspaceSize(tx, slope, any, ty, &ws, &exec), ACLNN_SUCCESS)
        << RecentError();
    EXPECT_GE(ws, 32u);
    Run(aclnnLeakyReluCustom, ws, exec);
    ASSERT_EQ(aclnnLeakyReluCustomGetWorkspaceSize(txh, slope, exact, tyh, &ws, &exec),
              ACLNN_SUCCESS)
        << RecentError();
    Run(aclnnLeakyReluCustom, ws, exec);
    EXPECT_EQ(aclDestroyIntArray(any), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyIntArray(exact), ACLNN_SUCCESS);
    const auto got = Read<float>(ty, n);
    const auto goth = Read<aclFloat16>(tyh, n);
    const float s = static_cast<float>(slope);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], x[i] >= 0 ? x[i] : x[i] * s) << i;
      const float v = aclFloat16ToFloat(xh[i]);
      ASSERT_EQ(goth[i], aclFloatToFloat16(v >= 0 ? v : v * s)) << i;
    }
  }
}

TEST_F(AclnnTest, DtypeOutsideThePrototypeIsParamInvalidWithTheSupportedList) {
  std::vector<float> x(16, 1.0f);
  aclTensor* tx = Tensor(x, ACL_FLOAT);
  aclTensor* ty = Tensor(x, ACL_FLOAT);
  aclTensor* tz = Tensor(x, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_EQ(aclnnAddCustomGetWorkspaceSize(tx, ty, tz, &ws, &exec), ACLNN_ERR_PARAM_INVALID);
  const std::string m = RecentError();
  EXPECT_NE(m.find("aclnnAddCustomGetWorkspaceSize"), std::string::npos) << m;
  EXPECT_NE(m.find("inconsistent with the prototype"), std::string::npos) << m;
  EXPECT_NE(m.find("DT_FLOAT16"), std::string::npos) << m;
}

TEST_F(AclnnTest, FailedVendorTilingNamesTheGraphStatus) {
  std::vector<aclFloat16> a(16, 0), b(8, 0);
  aclTensor* tx = Tensor(a, ACL_FLOAT16);
  aclTensor* ty = Tensor(b, ACL_FLOAT16);
  aclTensor* tz = Tensor(a, ACL_FLOAT16);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  EXPECT_NE(aclnnAddCustomGetWorkspaceSize(tx, ty, tz, &ws, &exec), ACLNN_SUCCESS);
  const std::string m = RecentError();
  EXPECT_NE(m.find("tiling function"), std::string::npos) << m;
  EXPECT_NE(m.find("graphStatus 4294967295"), std::string::npos) << m;
}

TEST_F(AclnnTest, TooSmallWorkspaceAndStaleHandles) {
  std::vector<float> x(64, 2.0f);
  aclTensor* tx = Tensor(x, ACL_FLOAT);
  aclTensor* ty = Tensor(x, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* exec = nullptr;
  // The list attribute: a shape the input does not have fails the vendor tiling; a destroyed
  // array handle is named.
  const int64_t wrong[2] = {8, 8};
  aclIntArray* shape = aclCreateIntArray(wrong, 2);
  EXPECT_NE(aclnnLeakyReluCustomGetWorkspaceSize(tx, 0.5, shape, ty, &ws, &exec), ACLNN_SUCCESS);
  EXPECT_NE(RecentError().find("graphStatus"), std::string::npos);
  EXPECT_EQ(aclDestroyIntArray(shape), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnLeakyReluCustomGetWorkspaceSize(tx, 0.5, shape, ty, &ws, &exec),
            ACLNN_ERR_PARAM_INVALID);
  const std::string stale = RecentError();
  EXPECT_NE(stale.find("expected_shape"), std::string::npos) << stale;
  EXPECT_NE(stale.find("not a live aclIntArray"), std::string::npos) << stale;
  EXPECT_EQ(aclnnLeakyReluCustomGetWorkspaceSize(tx, 0.5, nullptr, ty, &ws, &exec),
            ACLNN_ERR_PARAM_NULLPTR);
  aclIntArray* any = aclCreateIntArray(nullptr, 0);
  ASSERT_EQ(aclnnLeakyReluCustomGetWorkspaceSize(tx, 0.5, any, ty, &ws, &exec), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyIntArray(any), ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  void* w = nullptr;
  ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnLeakyReluCustom(w, ws - 1, exec, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("workspace"), std::string::npos);
  EXPECT_EQ(aclrtFree(w), ACL_SUCCESS);
  // The executor was single use: a second launch is refused by name.
  EXPECT_NE(aclnnLeakyReluCustom(nullptr, 0, exec, stream_), ACLNN_SUCCESS);
  EXPECT_NE(RecentError().find("aclnnLeakyReluCustom"), std::string::npos);

  const int64_t dims[1] = {4};
  aclTensor* t = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, w);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("not a live tensor"), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST(AclMetaTest, CreateTensorChecksItsArguments) {
  const int64_t dims[2] = {2, 3};
  const int64_t small[1] = {5};
  float buf[8] = {};
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, buf),
            nullptr);
  EXPECT_NE(RecentError().find("viewDims is NULL"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_UINT16, nullptr, 0, ACL_FORMAT_ND, dims, 2, buf), nullptr);
  EXPECT_NE(RecentError().find("dataType 7"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_NCHW, dims, 2, buf),
            nullptr);
  EXPECT_NE(RecentError().find("ACL_FORMAT_ND"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, small, 1, buf), nullptr);
  EXPECT_NE(RecentError().find("storage holds 5"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 2, ACL_FLOAT, nullptr, -1, ACL_FORMAT_ND, dims, 2, buf), nullptr);
  const int64_t huge[2] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(aclCreateTensor(huge, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, huge, 2, buf), nullptr);
  EXPECT_NE(RecentError().find("overflows"), std::string::npos);
  // A strided view with an offset inside its storage is accepted and reports its view shape.
  const int64_t strides[2] = {1, 2};
  const int64_t storage[1] = {8};
  aclTensor* t = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage, 1, buf);
  ASSERT_NE(t, nullptr) << RecentError();
  int64_t* view = nullptr;
  uint64_t rank = 0;
  ASSERT_EQ(aclGetViewShape(t, &view, &rank), ACLNN_SUCCESS);
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(view[0], 2);
  EXPECT_EQ(view[1], 3);
  delete[] view;
  aclDataType dt = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(t, &dt), ACLNN_SUCCESS);
  EXPECT_EQ(dt, ACL_FLOAT);
  EXPECT_EQ(aclDestroyTensor(t), ACLNN_SUCCESS);
}

TEST(AclMetaTest, ScalarsAndArraysAreLiveHandles) {
  float v = 2.5f;
  aclScalar* s = aclCreateScalar(&v, ACL_FLOAT);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_EQ(aclCreateScalar(&v, ACL_STRING), nullptr);
  EXPECT_EQ(aclDestroyScalar(s), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyScalar(s), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("not a live aclScalar"), std::string::npos);

  std::mt19937 rng(9);
  for (uint64_t n : {0u, 1u, 7u, 31u}) {
    std::vector<int64_t> iv(n);
    std::vector<float> fv(n);
    for (uint64_t i = 0; i < n; ++i) {
      iv[i] = static_cast<int64_t>(rng());
      fv[i] = static_cast<float>(rng()) / 7.0f;
    }
    aclIntArray* ia = aclCreateIntArray(iv.data(), n);
    aclFloatArray* fa = aclCreateFloatArray(fv.data(), n);
    ASSERT_NE(ia, nullptr);
    ASSERT_NE(fa, nullptr);
    uint64_t size = 99;
    EXPECT_EQ(aclGetIntArraySize(ia, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, n);
    EXPECT_EQ(aclGetFloatArraySize(fa, &size), ACLNN_SUCCESS);
    EXPECT_EQ(size, n);
    // A handle of one kind is not accepted as another.
    EXPECT_EQ(aclGetFloatArraySize(reinterpret_cast<aclFloatArray*>(ia), &size),
              ACLNN_ERR_PARAM_INVALID);
    EXPECT_EQ(aclDestroyIntArray(ia), ACLNN_SUCCESS);
    EXPECT_EQ(aclDestroyFloatArray(fa), ACLNN_SUCCESS);
    EXPECT_EQ(aclGetIntArraySize(ia, &size), ACLNN_ERR_PARAM_INVALID);
  }
  EXPECT_EQ(aclCreateIntArray(nullptr, 3), nullptr);
  const bool bv[3] = {true, false, true};
  aclBoolArray* ba = aclCreateBoolArray(bv, 3);
  uint64_t size = 0;
  EXPECT_EQ(aclGetBoolArraySize(ba, &size), ACLNN_SUCCESS);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(aclDestroyBoolArray(ba), ACLNN_SUCCESS);
}

}  // namespace
