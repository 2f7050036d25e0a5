// Every kernel-API finding: the stream error names kernel, block, API and values; the JSON report
// records it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "kernel_test_util.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::Contains;
using testing::DeviceBuffer;
using testing::RunKernel;

void InitTooMuch() {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 100 * 1024);
}

void AllocFromFullQueue() {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> a = q.AllocTensor<float>();
  LocalTensor<float> b = q.AllocTensor<float>();
  LocalTensor<float> c = q.AllocTensor<float>();
  (void)a, (void)b, (void)c;
}

void DeQueEmpty() {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 256);
  (void)q.DeQue<float>();
}

void DoubleFree() {
  TPipe pipe;
  TQue<TPosition::VECOUT, 1> q;
  pipe.InitBuffer(q, 1, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  q.FreeTensor(t);
  q.FreeTensor(t);
}

void EnQueForeign() {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> a;
  TQue<TPosition::VECOUT, 1> b;
  pipe.InitBuffer(a, 1, 256);
  pipe.InitBuffer(b, 1, 256);
  LocalTensor<float> t = a.AllocTensor<float>();
  b.EnQue(t);
}

TEST(FindingsTest, StructuralMisuseFailsInEveryMode) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    Status st = RunKernel("init_too_much", 1, InitTooMuch);
    EXPECT_TRUE(Contains(st,
                         "kernel 'init_too_much' block 0 (AIV): TPipe::InitBuffer: UB buffer size "
                         "is 204800, exceeds the limit 196608"))
        << st.ToString();
    st = RunKernel("full", 1, AllocFromFullQueue);
    EXPECT_TRUE(Contains(st, "AllocTensor: TQue<VECIN, depth 2>: all 2 buffers are in use"))
        << st.ToString();
    st = RunKernel("empty", 1, DeQueEmpty);
    EXPECT_TRUE(Contains(st, "DeQue: TQue<VECIN, depth 1> is empty")) << st.ToString();
    st = RunKernel("double_free", 1, DoubleFree);
    EXPECT_TRUE(Contains(st, "FreeTensor: TQue<VECOUT, depth 1>: double FreeTensor"))
        << st.ToString();
    st = RunKernel("foreign", 1, EnQueForeign);
    EXPECT_TRUE(
        Contains(st, "EnQue: TQue<VECOUT, depth 1>: the tensor does not belong to this queue"))
        << st.ToString();
  }
}

void Leak() {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  t.SetValue(0, 1.0f);
}

void WaitWithoutSet() {
  SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
  WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
  WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
}

void SetNeverWaited() {
  SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID2);
  PipeBarrier<PIPE_V>();
}

void UnalignedLength(float* x) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, 64);
  DataCopy(buf.Get<float>(), g, 25);
}

void UnalignedAddress(float* x) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, 64);
  DataCopy(buf.Get<float>()[3], g, 16);  // UB side off its 32-byte grid
}

void LocalOutOfRange() {
  TPipe pipe;
  TQue<TPosition::VECCALC, 1> q;
  pipe.InitBuffer(q, 1, 128);
  LocalTensor<float> t = q.AllocTensor<float>();
  t.SetValue(32, 2.0f);  // 128 bytes hold 32 floats
}

void GlobalOutOfExtent(float* x) {
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, 10);
  g.SetValue(10, 1.0f);
}

void CopyBeyondExtent(float* x) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, 16);
  DataCopy(buf.Get<float>(), g, 24);
}

void UseAfterFree() {
  TPipe pipe;
  TQue<TPosition::VECIN, 1> q;
  pipe.InitBuffer(q, 1, 256);
  LocalTensor<float> t = q.AllocTensor<float>();
  q.FreeTensor(t);
  t.SetValue(0, 1.0f);
}

TEST(FindingsTest, AccessChecksInCheckedMode) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f);
  Status st = RunKernel("leak", 1, Leak);
  EXPECT_TRUE(Contains(st,
                       "kernel 'leak' block 0 (AIV): FreeTensor: TQue<VECIN, depth 2>: 1 tensor(s) "
                       "taken with AllocTensor were not freed"))
      << st.ToString();
  st = RunKernel("flags", 1, WaitWithoutSet);
  EXPECT_TRUE(Contains(st, "WaitFlag: WaitFlag<V_MTE3>(0) has no earlier SetFlag"))
      << st.ToString();
  st = RunKernel("flags", 1, SetNeverWaited);
  EXPECT_TRUE(
      Contains(st, "SetFlag: SetFlag<MTE3_MTE2>(2) was set 1 time(s) more than it was waited for"))
      << st.ToString();
  st = RunKernel("unaligned", 1, UnalignedLength, x.get());
  EXPECT_TRUE(Contains(st, "DataCopy: length in bytes 100 is not 32-byte aligned; use DataCopyPad"))
      << st.ToString();
  st = RunKernel("unaligned", 1, UnalignedAddress, x.get());
  EXPECT_TRUE(Contains(st, "DataCopy: destination UB address 0x")) << st.ToString();
  EXPECT_TRUE(Contains(st, "is not 32-byte aligned"));
  st = RunKernel("oob", 1, LocalOutOfRange);
  EXPECT_TRUE(
      Contains(st, "LocalTensor::SetValue: index 32 is outside the tensor's 32 elements (VECCALC)"))
      << st.ToString();
  st = RunKernel("oob", 1, GlobalOutOfExtent, x.get());
  EXPECT_TRUE(
      Contains(st, "GlobalTensor::SetValue: index 10 is outside the global tensor's extent of 10"))
      << st.ToString();
  st = RunKernel("oob", 1, CopyBeyondExtent, x.get());
  EXPECT_TRUE(Contains(st, "DataCopy: source: 24 elements exceed the global tensor's extent of 16"))
      << st.ToString();
  st = RunKernel("uaf", 1, UseAfterFree);
  EXPECT_TRUE(Contains(st, "already freed with FreeTensor")) << st.ToString();
}

TEST(FindingsTest, FastModeSkipsAccessChecks) {
  testing::CheckedScope scope(false);
  DeviceBuffer<float> x(64, 1.0f);
  EXPECT_TRUE(RunKernel("leak", 1, Leak).ok());
  EXPECT_TRUE(RunKernel("flags", 1, WaitWithoutSet).ok());
  EXPECT_TRUE(RunKernel("unaligned", 1, UnalignedLength, x.get()).ok());
  EXPECT_TRUE(RunKernel("oob", 1, GlobalOutOfExtent, x.get()).ok());  // index 10 of 64 real floats
}

TEST(FindingsTest, JsonReportListsEveryFinding) {
  testing::CheckedScope scope(true);
  const std::string path = ::testing::TempDir() + "tessera_findings.json";
  std::remove(path.c_str());
  ASSERT_EQ(setenv("TESSERA_CHECK_REPORT", path.c_str(), 1), 0);
  DeviceBuffer<float> x(64, 1.0f);
  EXPECT_FALSE(RunKernel("json_leak", 1, Leak).ok());
  EXPECT_FALSE(RunKernel("json_unaligned", 2, UnalignedLength, x.get()).ok());
  unsetenv("TESSERA_CHECK_REPORT");
  std::ifstream in(path);
  ASSERT_TRUE(in.good());
  const nlohmann::json report = nlohmann::json::parse(in);
  const auto& findings = report.at("findings");
  ASSERT_GE(findings.size(), 2u);
  bool saw_leak = false, saw_copy = false;
  for (const auto& f : findings) {
    if (f.at("kernel") == "json_leak") {
      saw_leak = true;
      EXPECT_EQ(f.at("api"), "FreeTensor");
      EXPECT_EQ(f.at("block"), 0);
      EXPECT_EQ(f.at("core_type"), "AIV");
      EXPECT_TRUE(f.at("checked_mode").get<bool>());
    }
    if (f.at("kernel") == "json_unaligned") {
      saw_copy = true;
      EXPECT_EQ(f.at("api"), "DataCopy");
      EXPECT_NE(f.at("message").get<std::string>().find("length in bytes 100"), std::string::npos);
    }
  }
  EXPECT_TRUE(saw_leak);
  EXPECT_TRUE(saw_copy);
}

}  // namespace
}  // namespace tessera::kernel

namespace tessera::kernel {
namespace {

void ExtentTooLong(float* x, int64_t count) {
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, static_cast<uint64_t>(count));
}

TEST(FindingsTest, GlobalExtentMustFitTheAllocation) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f);
  EXPECT_TRUE(RunKernel("extent", 1, ExtentTooLong, x.get(), int64_t{64}).ok());
  EXPECT_TRUE(RunKernel("extent", 1, ExtentTooLong, x.get() + 63, int64_t{1}).ok());
  Status st = RunKernel("extent", 1, ExtentTooLong, x.get() + 8, int64_t{57});
  EXPECT_TRUE(
      Contains(st, "extent of 57 elements exceeds the 56 elements left in its device allocation"))
      << st.ToString();
}

}  // namespace
}  // namespace tessera::kernel

namespace tessera::kernel {
namespace {

// GM addresses need no alignment (the NPU's copy engine takes any); only the UB side does.
void UnalignedGlobal(float* x) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 1024);
  GlobalTensor<float> g;
  g.SetGlobalBuffer(x, 64);
  DataCopy(buf.Get<float>(), g[3], 16);
  DataCopy(g[5], buf.Get<float>(), 16);
}

void HugeInitBuffer() {
  TPipe pipe;
  TQue<TPosition::VECIN, 2> q;
  pipe.InitBuffer(q, 2, 0xFFFFFFF0u);  // rounding must not wrap to 0
}

// A strided UB->GM copy whose span exceeds 2^32 bytes must be caught, not wrapped to a small one.
void HugeStride(uint8_t* y) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, 4096 * 32);
  GlobalTensor<uint8_t> g;
  g.SetGlobalBuffer(y, 200000);
  DataCopy(g, buf.Get<uint8_t>(), DataCopyParams{4096, 1, 0, 32776});
}

// GatherMask in COUNTER mode over a source of exactly the elements it reads (70 of 72 floats in
// two repeats): the check covers the elements read, not the last repeat's whole blocks.
void GatherMaskCounterExactSource(float* x, float* y, uint64_t* count) {
  TPipe pipe;
  TBuf<TPosition::VECCALC> src_buf, dst_buf;
  pipe.InitBuffer(src_buf, 72 * sizeof(float));
  pipe.InitBuffer(dst_buf, 72 * sizeof(float));
  LocalTensor<float> src = src_buf.Get<float>(), dst = dst_buf.Get<float>();
  GlobalTensor<float> gx, gy;
  gx.SetGlobalBuffer(x, 72);
  gy.SetGlobalBuffer(y, 72);
  DataCopy(src, gx, 72);
  uint64_t n = 0;
  GatherMask(dst, src, uint8_t{7}, true, 70, GatherMaskParams{1, 2, 8, 0}, n);
  for (uint64_t i = 0; i < n; ++i)
    gy.SetValue(i, dst.GetValue(static_cast<uint32_t>(i)));
  *count = n;
}

TEST(FindingsTest, GatherMaskCounterModeChecksTheElementsRead) {
  testing::CheckedScope scope(true);
  std::vector<float> host(72);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i * 7 % 31) - 15.0f;
  DeviceBuffer<float> x(host), y(72, 0.0f);
  DeviceBuffer<uint64_t> count(1, 0);
  const Status st =
      RunKernel("gather_counter", 1, GatherMaskCounterExactSource, x.get(), y.get(), count.get());
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(count.ToHost()[0], 70u);
  const auto out = y.ToHost();
  for (size_t i = 0; i < 72; ++i)
    ASSERT_EQ(out[i], i < 70 ? host[i] : 0.0f) << i;
}

TEST(FindingsTest, ReviewRegressions) {
  testing::CheckedScope scope(true);
  DeviceBuffer<float> x(64, 1.0f);
  EXPECT_TRUE(RunKernel("unaligned_gm", 1, UnalignedGlobal, x.get()).ok());
  Status st = RunKernel("huge_init", 1, HugeInitBuffer);
  EXPECT_TRUE(Contains(st, "UB buffer size is 8589934592, exceeds the limit 196608"))
      << st.ToString();
  DeviceBuffer<uint8_t> y(200000, 0);
  st = RunKernel("huge_stride", 1, HugeStride, y.get());
  EXPECT_TRUE(Contains(st,
                       "destination (DataCopyParams): 4295098112 elements exceed the global "
                       "tensor's extent of 200000"))
      << st.ToString();
  const auto host = y.ToHost();
  for (uint8_t b : host)
    ASSERT_EQ(b, 0);  // nothing was written
}

}  // namespace
}  // namespace tessera::kernel
