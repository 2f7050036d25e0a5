// The two-stage C API end to end over the built-in package: results, broadcasting, the parameter
// cache, executors, workspace checks and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/tessera_nn.h"

namespace {

bool LastErrorHas(const std::string& needle) {
  return std::string(tsrGetLastErrorMessage()).find(needle) != std::string::npos;
}

// A device tensor with host data, freed on destruction.
struct DevTensor {
  std::vector<int64_t> shape;
  void* dev = nullptr;
  tsrTensor* t = nullptr;
  size_t bytes = 0;

  DevTensor(std::vector<int64_t> s, tsrDataType dtype, size_t elem) : shape(std::move(s)) {
    size_t n = 1;
    for (int64_t d : shape)
      n *= static_cast<size_t>(d);
    bytes = n * elem;
    EXPECT_EQ(tsrMalloc(&dev, bytes ? bytes : 1), TSR_SUCCESS);
    t = tsrCreateTensor(shape.data(), shape.size(), nullptr, dtype, TSR_FORMAT_ND, dev);
    EXPECT_NE(t, nullptr) << tsrGetLastErrorMessage();
  }
  ~DevTensor() {
    tsrDestroyTensor(t);
    tsrFree(dev);
  }
  template <class T>
  void Upload(const std::vector<T>& v) {
    ASSERT_EQ(tsrMemcpy(dev, bytes, v.data(), v.size() * sizeof(T), TSR_MEMCPY_HOST_TO_DEVICE),
              TSR_SUCCESS);
  }
  template <class T>
  std::vector<T> Download() const {
    std::vector<T> v(bytes / sizeof(T));
    EXPECT_EQ(tsrMemcpy(v.data(), bytes, dev, bytes, TSR_MEMCPY_DEVICE_TO_HOST), TSR_SUCCESS);
    return v;
  }
};

std::vector<float> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v)
    x = dist(rng);
  return v;
}

TEST(TwoStageTest, TypedAddMatchesScalarLoop) {
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{4097}, int64_t{1000003}}) {
    DevTensor x1({n}, TSR_FLOAT, 4), x2({n}, TSR_FLOAT, 4), y({n}, TSR_FLOAT, 4);
    const auto a = Random(static_cast<size_t>(n), 1), b = Random(static_cast<size_t>(n), 2);
    x1.Upload(a);
    x2.Upload(b);
    uint64_t ws = 99;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrAddGetWorkspaceSize(x1.t, x2.t, y.t, &ws, &exec), TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    ASSERT_NE(exec, nullptr);
    void* workspace = nullptr;
    if (ws > 0) {
      ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
    }
    ASSERT_EQ(tsrAdd(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
    const auto out = y.Download<float>();
    for (size_t i = 0; i < out.size(); ++i)
      ASSERT_EQ(out[i], a[i] + b[i]) << n << " @" << i;
    if (workspace) tsrFree(workspace);
  }
}

TEST(TwoStageTest, BroadcastAndOtherOpsByName) {
  DevTensor x1({3, 1, 5}, TSR_FLOAT, 4), x2({4, 5}, TSR_FLOAT, 4), y({3, 4, 5}, TSR_FLOAT, 4);
  const auto a = Random(15, 3), b = Random(20, 4);
  x1.Upload(a);
  x2.Upload(b);
  const tsrTensor* ins[2] = {x1.t, x2.t};
  const tsrTensor* outs[1] = {y.t};
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrOpGetWorkspaceSize("Maximum", ins, 2, outs, 1, nullptr, 0, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrOpExecute(nullptr, 0, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
  const auto out = y.Download<float>();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 5; ++k)
        ASSERT_EQ(out[(i * 4 + j) * 5 + k], std::max(a[i * 5 + k], b[j * 5 + k]));
    }
  }
  // A float attribute and a bfloat16 unary op through the typed functions.
  DevTensor bx({33}, TSR_BF16, 2), by({33}, TSR_BF16, 2);
  std::vector<tessera::bfloat16> hb(33);
  for (int i = 0; i < 33; ++i)
    hb[i] = tessera::bfloat16(static_cast<float>(i) - 16.0f);
  bx.Upload(hb);
  ASSERT_EQ(tsrMulsGetWorkspaceSize(bx.t, 0.5f, by.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrMuls(nullptr, 0, exec, nullptr), TSR_SUCCESS);
  ASSERT_EQ(tsrReluGetWorkspaceSize(by.t, bx.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrRelu(nullptr, 0, exec, nullptr), TSR_SUCCESS);
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
  const auto relu = bx.Download<tessera::bfloat16>();
  for (int i = 0; i < 33; ++i)
    EXPECT_EQ(static_cast<float>(relu[i]), std::max(0.0f, (i - 16.0f) * 0.5f));
}

TEST(TwoStageTest, CacheHitSkipsLookupAndTiling) {
  DevTensor x({1000}, TSR_FLOAT, 4), y({1000}, TSR_FLOAT, 4);
  x.Upload(Random(1000, 5));
  tsrRuntimeStats before{}, after{};
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrExpGetWorkspaceSize(x.t, y.t, &ws, &exec), TSR_SUCCESS) << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  ASSERT_EQ(tsrGetRuntimeStats(&before), TSR_SUCCESS);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(tsrExpGetWorkspaceSize(x.t, y.t, &ws, &exec), TSR_SUCCESS);
    ASSERT_EQ(tsrExp(nullptr, 0, exec, nullptr), TSR_SUCCESS);
  }
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
  ASSERT_EQ(tsrGetRuntimeStats(&after), TSR_SUCCESS);
  EXPECT_EQ(after.cacheHits - before.cacheHits, 50u);
  EXPECT_EQ(after.tilingCalls, before.tilingCalls);        // no tiling function ran
  EXPECT_EQ(after.packageLookups, before.packageLookups);  // no package search
  // A different shape is a different key.
  DevTensor x2({999}, TSR_FLOAT, 4), y2({999}, TSR_FLOAT, 4);
  ASSERT_EQ(tsrExpGetWorkspaceSize(x2.t, y2.t, &ws, &exec), TSR_SUCCESS);
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  ASSERT_EQ(tsrGetRuntimeStats(&after), TSR_SUCCESS);
  EXPECT_EQ(after.tilingCalls, before.tilingCalls + 1);
}

TEST(TwoStageTest, RepeatableExecutorRunsWithNewAddresses) {
  DevTensor x({64}, TSR_FLOAT, 4), y({64}, TSR_FLOAT, 4), z({64}, TSR_FLOAT, 4);
  const auto a = Random(64, 6);
  x.Upload(a);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrAbsGetWorkspaceSize(x.t, y.t, &ws, &exec), TSR_SUCCESS);
  ASSERT_EQ(tsrSetExecutorRepeatable(exec), TSR_SUCCESS);
  ASSERT_EQ(tsrAbs(nullptr, 0, exec, nullptr), TSR_SUCCESS);
  ASSERT_EQ(tsrSetExecutorTensorAddress(exec, 1, z.dev), TSR_SUCCESS);
  ASSERT_EQ(tsrAbs(nullptr, 0, exec, nullptr), TSR_SUCCESS);  // again, into z
  EXPECT_EQ(tsrSetExecutorTensorAddress(exec, 2, z.dev), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("tensor index 2 is out of range; the op has 2 tensors"));
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  const auto oy = y.Download<float>(), oz = z.Download<float>();
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(oy[i], std::fabs(a[i]));
    EXPECT_EQ(oz[i], std::fabs(a[i]));
  }
}

TEST(TwoStageTest, ErrorsNameWhatWasExpected) {
  DevTensor x({4, 2}, TSR_FLOAT, 4), bad({3, 2}, TSR_FLOAT, 4), y({4, 2}, TSR_FLOAT, 4);
  DevTensor h({4, 2}, TSR_FLOAT16, 2);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  EXPECT_EQ(tsrAddGetWorkspaceSize(x.t, bad.t, y.t, &ws, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("cannot be broadcast")) << tsrGetLastErrorMessage();
  EXPECT_EQ(exec, nullptr);
  EXPECT_NE(tsrAddGetWorkspaceSize(x.t, h.t, y.t, &ws, &exec), TSR_SUCCESS);
  EXPECT_TRUE(
      LastErrorHas("is inconsistent with the prototype, details: x1(DT_FLOAT, ND), x2(DT_FLOAT16, "
                   "ND), y(DT_FLOAT, ND)"))
      << tsrGetLastErrorMessage();
  EXPECT_TRUE(LastErrorHas("Supported dtype and format list is:"));
  const tsrTensor* ins[1] = {x.t};
  const tsrTensor* outs[1] = {y.t};
  EXPECT_EQ(tsrOpGetWorkspaceSize("NoSuchOp", ins, 1, outs, 1, nullptr, 0, &ws, &exec),
            TSR_ERROR_NOT_FOUND);
  EXPECT_TRUE(LastErrorHas("NoSuchOp")) << tsrGetLastErrorMessage();
  EXPECT_EQ(tsrOpGetWorkspaceSize("Adds", ins, 1, outs, 1, nullptr, 0, &ws, &exec),
            TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("required attribute 'value' (float) is missing"))
      << tsrGetLastErrorMessage();
  EXPECT_EQ(tsrOpGetWorkspaceSize(nullptr, ins, 1, outs, 1, nullptr, 0, &ws, &exec),
            TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrAbsGetWorkspaceSize(x.t, y.t, nullptr, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tsrAbsGetWorkspaceSize(x.t, nullptr, &ws, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("Abs: output 0 is NULL")) << tsrGetLastErrorMessage();
  EXPECT_EQ(tsrAbsGetWorkspaceSize(nullptr, y.t, &ws, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(LastErrorHas("required input 'x' is missing")) << tsrGetLastErrorMessage();

  // Single-use executors are released by the run; a null one is an error.
  EXPECT_EQ(tsrOpExecute(nullptr, 0, nullptr, nullptr), TSR_ERROR_INVALID_ARGUMENT);
}

TEST(TwoStageTest, SingleUseExecutorRunsOnce) {
  DevTensor x({8}, TSR_FLOAT, 4), y({8}, TSR_FLOAT, 4);
  tessera::runtime::OpCall call;
  call.op_type = "Relu";
  call.inputs.push_back(tessera::runtime::TensorArg{
      tessera::TensorDesc{
          tessera::DataType::kFloat32, *tessera::Shape::Make({8}), tessera::Format::kND, {}},
      x.dev});
  call.outputs.push_back(tessera::runtime::TensorArg{
      tessera::TensorDesc{
          tessera::DataType::kFloat32, *tessera::Shape::Make({8}), tessera::Format::kND, {}},
      y.dev});
  uint64_t ws = 1;
  auto exec = tessera::runtime::PrepareOp(call, &ws);
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ((*exec)->package(), "builtin");
  // What tools show: the plan, and its tiling data decoded through the op's declared struct.
  const tessera::runtime::PlanInfo info = (*exec)->info();
  EXPECT_EQ(info.kernel_name, "relu");
  EXPECT_EQ(info.simplified_key, "Relu/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND");
  EXPECT_GE(info.block_dim, 1u);
  ASSERT_NE(info.tiling_schema, nullptr);
  auto json = tessera::tiling::TilingToJson(*info.tiling_schema, info.tiling_data);
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_NE(json->find("\"fields\""), std::string::npos) << *json;
  tessera::Status again =
      tessera::runtime::ExecuteOp(**exec, nullptr, 0, tessera::device::Stream());
  ASSERT_TRUE(again.ok()) << again.ToString();
  again = tessera::runtime::ExecuteOp(**exec, nullptr, 0, tessera::device::Stream());
  EXPECT_NE(std::string(again.message()).find("already run"), std::string::npos)
      << again.ToString();
  ASSERT_TRUE(tessera::device::Stream().Synchronize().ok());
}

// The tiling is made for the profile of stage 1 (its UB and core count): an executor run after
// SetProfile changed it is refused with both profile names, and stage 1 again plans for the new
// one.
TEST(TwoStageTest, ExecutorFromAnotherProfileIsRefused) {
  const int64_t n = 4097;
  DevTensor x1({n}, TSR_FLOAT, 4), x2({n}, TSR_FLOAT, 4), y({n}, TSR_FLOAT, 4);
  const auto a = Random(n, 31), b = Random(n, 32);
  x1.Upload(a);
  x2.Upload(b);
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(x1.t, x2.t, y.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  ASSERT_TRUE(tessera::device::SetProfile("ascend910b").ok());
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  }
  EXPECT_EQ(tsrAdd(workspace, ws, exec, nullptr), TSR_ERROR_FAILED_PRECONDITION);
  EXPECT_TRUE(
      LastErrorHas("prepared for device profile 'native' but the current profile is "
                   "'ascend910b'"))
      << tsrGetLastErrorMessage();
  tsrFree(workspace);
  exec = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(x1.t, x2.t, y.t, &ws, &exec), TSR_SUCCESS)
      << tsrGetLastErrorMessage();
  workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(tsrMalloc(&workspace, ws), TSR_SUCCESS);
  }
  ASSERT_EQ(tsrAdd(workspace, ws, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
  tsrFree(workspace);
  ASSERT_TRUE(tessera::device::SetProfile("native").ok());
  const auto out = y.Download<float>();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

}  // namespace
