// Plans and run-time attributes over the built-in package: a scalar operand (Adds, Muls) is not
// part of the plan - new values hit the parameter cache, every launch sees its own value, and a
// value the dtype cannot hold is refused per call. Also: OpDef::Validate's rules for
// RunTimeValue, and a cache miss for a known op never parses a manifest again.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "builtin_nn.h"  // the built-in package's generated op API
#include "tessera/device/memory.h"
#include "tessera/runtime/op_def.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/tessera_nn.h"

namespace {

struct DevTensor {
  void* dev = nullptr;
  tsrTensor* t = nullptr;
  size_t bytes = 0;
  DevTensor(int64_t n, tsrDataType dtype, size_t elem) : bytes(static_cast<size_t>(n) * elem) {
    EXPECT_EQ(tsrMalloc(&dev, bytes), TSR_SUCCESS);
    t = tsrCreateTensor(&n, 1, nullptr, dtype, TSR_FORMAT_ND, dev);
    EXPECT_NE(t, nullptr) << tsrGetLastErrorMessage();
  }
  ~DevTensor() {
    tsrDestroyTensor(t);
    tsrFree(dev);
  }
  template <class T>
  void Upload(const std::vector<T>& v) {
    ASSERT_EQ(tsrMemcpy(dev, bytes, v.data(), bytes, TSR_MEMCPY_HOST_TO_DEVICE), TSR_SUCCESS);
  }
  template <class T>
  std::vector<T> Download() const {
    std::vector<T> v(bytes / sizeof(T));
    EXPECT_EQ(tsrMemcpy(v.data(), bytes, dev, bytes, TSR_MEMCPY_DEVICE_TO_HOST), TSR_SUCCESS);
    return v;
  }
};

tsrRuntimeStats Stats() {
  tsrRuntimeStats s{};
  EXPECT_EQ(tsrGetRuntimeStats(&s), TSR_SUCCESS);
  return s;
}

TEST(RunTimeAttrTest, NewScalarValuesHitTheCacheAndEachLaunchSeesItsOwn) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{31}, int64_t{4097}}) {
    DevTensor x(n, TSR_FLOAT, 4);
    std::vector<float> in(static_cast<size_t>(n));
    for (float& v : in)
      v = dist(rng);
    x.Upload(in);
    // Warm the plan (and the runtime's note of which attributes are run-time values).
    std::vector<float> values;
    for (int i = 0; i < 2; ++i) {
      DevTensor y(n, TSR_FLOAT, 4);
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrAddsGetWorkspaceSize(x.t, dist(rng), y.t, &ws, &exec), TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      ASSERT_EQ(tsrAdds(nullptr, 0, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
      ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
    }
    const tsrRuntimeStats before = Stats();
    // Eight launches with eight values queued on one stream before any runs to completion: each
    // must add its own value, none may miss the cache.
    tsrStream stream = nullptr;
    ASSERT_EQ(tsrCreateStream(&stream), TSR_SUCCESS);
    std::vector<std::unique_ptr<DevTensor>> outs;
    for (int i = 0; i < 8; ++i) {
      outs.push_back(std::make_unique<DevTensor>(n, TSR_FLOAT, 4));
      values.push_back(dist(rng));
      uint64_t ws = 0;
      tsrOpExecutor* exec = nullptr;
      ASSERT_EQ(tsrAddsGetWorkspaceSize(x.t, values.back(), outs.back()->t, &ws, &exec),
                TSR_SUCCESS)
          << tsrGetLastErrorMessage();
      ASSERT_EQ(tsrAdds(nullptr, 0, exec, stream), TSR_SUCCESS) << tsrGetLastErrorMessage();
    }
    ASSERT_EQ(tsrSynchronizeStream(stream), TSR_SUCCESS) << tsrGetLastErrorMessage();
    const tsrRuntimeStats after = Stats();
    EXPECT_EQ(after.cacheMisses, before.cacheMisses) << "n=" << n;
    EXPECT_EQ(after.tilingCalls, before.tilingCalls) << "n=" << n;
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::vector<float> got = outs[i]->Download<float>();
      for (size_t k = 0; k < in.size(); ++k)
        ASSERT_EQ(got[k], in[k] + values[i]) << "n=" << n << " launch " << i << " element " << k;
    }
    ASSERT_EQ(tsrDestroyStream(stream), TSR_SUCCESS);
  }
}

TEST(RunTimeAttrTest, Int32ScalarIsCheckedOnEveryCall) {
  const int64_t n = 1000003;
  DevTensor x(n, TSR_INT32, 4), y(n, TSR_INT32, 4);
  std::mt19937 rng(3);
  std::uniform_int_distribution<int32_t> dist(-100000, 100000);
  std::vector<int32_t> in(static_cast<size_t>(n));
  for (int32_t& v : in)
    v = dist(rng);
  x.Upload(in);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  for (const int32_t value : {3, -7, 11}) {
    ASSERT_EQ(tsrMulsGetWorkspaceSize(x.t, value, y.t, &ws, &exec), TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrMuls(nullptr, 0, exec, nullptr), TSR_SUCCESS);
    ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
    const auto got = y.Download<int32_t>();
    for (size_t k = 0; k < in.size(); k += 997)
      ASSERT_EQ(got[k], in[k] * value) << k;
  }
  // The plan exists; a value an int32 cannot hold is still refused, naming it.
  const tsrRuntimeStats before = Stats();
  EXPECT_EQ(tsrMulsGetWorkspaceSize(x.t, 2.5, y.t, &ws, &exec), TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsrGetLastErrorMessage()).find("2.5"), std::string::npos)
      << tsrGetLastErrorMessage();
  EXPECT_EQ(Stats().tilingCalls, before.tilingCalls);
}

TEST(RunTimeAttrTest, ByNameCallsShareThePlanToo) {
  const int64_t n = 257;
  DevTensor x(n, TSR_FLOAT, 4), y(n, TSR_FLOAT, 4);
  std::vector<float> in(static_cast<size_t>(n));
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(i) * 0.25f - 9.0f;
  x.Upload(in);
  const tsrTensor* ins[] = {x.t};
  const tsrTensor* outs[] = {y.t};
  uint64_t misses = 0;
  for (int i = 0; i < 6; ++i) {
    tsrAttr attr{};
    attr.name = "value";
    attr.type = TSR_ATTR_FLOAT;
    attr.floatValue = 1.5f + static_cast<float>(i);
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrOpGetWorkspaceSize("Muls", ins, 1, outs, 1, &attr, 1, &ws, &exec), TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrOpExecute(nullptr, 0, exec, nullptr), TSR_SUCCESS);
    ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
    const auto got = y.Download<float>();
    for (size_t k = 0; k < in.size(); ++k)
      ASSERT_EQ(got[k], in[k] * attr.floatValue);
    // Learning that `value` is a run-time value may take the first two calls; after that, none.
    if (i == 2) misses = Stats().cacheMisses;
    if (i > 2) EXPECT_EQ(Stats().cacheMisses, misses);
  }
  // The wrong kind is still refused (the key keeps the kind).
  tsrAttr bad{};
  bad.name = "value";
  bad.type = TSR_ATTR_INT;
  bad.intValue = 2;
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  EXPECT_EQ(tsrOpGetWorkspaceSize("Muls", ins, 1, outs, 1, &bad, 1, &ws, &exec),
            TSR_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tsrGetLastErrorMessage()).find("expects float"), std::string::npos)
      << tsrGetLastErrorMessage();
}

TEST(RunTimeAttrTest, MissForAKnownOpParsesNoManifest) {
  const int64_t n = 64;
  DevTensor a(n, TSR_FLOAT, 4), b(n, TSR_FLOAT, 4), c(n, TSR_FLOAT, 4);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, c.t, &ws, &exec), TSR_SUCCESS);
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  const uint64_t parses = tessera::runtime::GetRuntimeStats().manifest_parses;
  for (int64_t rows = 1; rows <= 16; ++rows) {
    const int64_t shape[2] = {rows, 4};
    tsrTensor* t[3];
    for (int i = 0; i < 3; ++i) {
      void* dev = i == 0 ? a.dev : i == 1 ? b.dev : c.dev;
      t[i] = tsrCreateTensor(shape, 2, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev);
    }
    ASSERT_EQ(tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec), TSR_SUCCESS);
    ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
    for (tsrTensor* x : t)
      tsrDestroyTensor(x);
  }
  EXPECT_EQ(tessera::runtime::GetRuntimeStats().manifest_parses, parses);
}

// The per-thread plan memo never keeps a plan alive: once the cache drops a plan and no executor
// holds it, its device memory (the tiling copy) is freed at once, not later inside some other
// call's stage 1 (where freeing device memory would synchronise the device).
TEST(PlanMemoTest, AClearedPlanIsFreedByItsLastExecutor) {
  std::mt19937 rng(7);
  const int64_t n = 1 + static_cast<int64_t>(rng() % 997);
  DevTensor a(n, TSR_FLOAT, 4), b(n, TSR_FLOAT, 4), c(n, TSR_FLOAT, 4);
  uint64_t ws = 0;
  tsrOpExecutor* exec = nullptr;
  tessera::runtime::ClearParamCache();
  const uint64_t before = tessera::device::GetMemoryStats().live_allocations;
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, c.t, &ws, &exec), TSR_SUCCESS);
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, c.t, &ws, &exec), TSR_SUCCESS);  // a memo hit
  EXPECT_EQ(tessera::device::GetMemoryStats().live_allocations, before + 1);  // the plan's tiling
  tessera::runtime::ClearParamCache();
  EXPECT_EQ(tessera::device::GetMemoryStats().live_allocations, before + 1);  // the executor's
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  EXPECT_EQ(tessera::device::GetMemoryStats().live_allocations, before);
  // The next call misses (the memo's entry is stale) and builds the plan again.
  const tsrRuntimeStats s0 = Stats();
  ASSERT_EQ(tsrAddGetWorkspaceSize(a.t, b.t, c.t, &ws, &exec), TSR_SUCCESS);
  ASSERT_EQ(tsrDestroyExecutor(exec), TSR_SUCCESS);
  EXPECT_EQ(Stats().cacheMisses, s0.cacheMisses + 1);
  EXPECT_EQ(tessera::device::GetMemoryStats().live_allocations, before + 1);
}

// A tiling struct for the declaration checks below.
BEGIN_TILING_DATA_DEF(ScaleTiling)
TILING_DATA_FIELD_DEF(int64_t, total)
TILING_DATA_FIELD_DEF(float, scale)
TILING_DATA_FIELD_DEF(int64_t, count)
END_TILING_DATA_DEF;

tessera::Status NoTiling(tessera::runtime::TilingContext&) {
  return tessera::OkStatus();
}

class ScaleOp : public tessera::runtime::OpDef {
 public:
  ScaleOp() : OpDef("Scale") {
    using tessera::DataType;
    Input("x").ParamType(tessera::runtime::REQUIRED).DataType({DataType::kFloat32});
    Output("y").ParamType(tessera::runtime::REQUIRED).DataType({DataType::kFloat32});
    SetTiling(NoTiling);
    TilingDataType<ScaleTiling>();
    AddConfig("x86-64-v2");
  }
};

std::string ValidateMessage(const ScaleOp& op) {
  const tessera::Status s = op.Validate();
  return s.ok() ? "OK" : std::string(s.message());
}

TEST(RunTimeAttrTest, ValidateChecksTheDeclaration) {
  {
    ScaleOp op;
    op.Attr("scale").AttrType(tessera::runtime::REQUIRED).Float().RunTimeValue();
    op.Attr("count").AttrType(tessera::runtime::OPTIONAL).Int(3).RunTimeValue();
    EXPECT_EQ(ValidateMessage(op), "OK");
  }
  {
    ScaleOp op;  // no field of that name
    op.Attr("gain").AttrType(tessera::runtime::REQUIRED).Float().RunTimeValue();
    EXPECT_NE(ValidateMessage(op).find("needs a scalar field 'gain'"), std::string::npos)
        << ValidateMessage(op);
  }
  {
    ScaleOp op;  // a field of another type
    op.Attr("total").AttrType(tessera::runtime::REQUIRED).Float().RunTimeValue();
    EXPECT_NE(ValidateMessage(op).find("of type float32, not int64"), std::string::npos)
        << ValidateMessage(op);
  }
  {
    ScaleOp op;  // a writer lifts the field rule
    op.Attr("gain")
        .AttrType(tessera::runtime::REQUIRED)
        .Float()
        .RunTimeValue(
            [](const tessera::runtime::RunTimeValueContext&) { return tessera::OkStatus(); });
    EXPECT_EQ(ValidateMessage(op), "OK");
  }
  {
    ScaleOp op;
    op.Attr("mode").AttrType(tessera::runtime::REQUIRED).String().RunTimeValue();
    EXPECT_NE(ValidateMessage(op).find("only int, float and bool attributes"), std::string::npos)
        << ValidateMessage(op);
  }
  {
    ScaleOp op;
    op.SimplifiedKeyMode(1);
    op.Attr("count")
        .AttrType(tessera::runtime::REQUIRED)
        .Int()
        .RunTimeValue()
        .BinaryValues({int64_t{1}, int64_t{2}});
    EXPECT_NE(ValidateMessage(op).find("selects a binary is part of the plan"), std::string::npos)
        << ValidateMessage(op);
  }
}

}  // namespace
