// The cube side of TPipe and LocalMemAllocator (queues and buffers in L1, L0A, L0B, L0C, the bias
// table and the fixpipe buffer), and the vendor's pipe and HardEvent values.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "cube_test_util.h"

namespace tessera::kernel {
namespace {

using device::KernelType;
using testing::Contains;
using testing::RunCube;

static_assert(static_cast<int>(PIPE_S) == 0 && static_cast<int>(PIPE_MTE1) == 3 &&
              static_cast<int>(PIPE_ALL) == 6 && static_cast<int>(PIPE_FIX) == 10);
static_assert(static_cast<int>(HardEvent::MTE2_MTE1) == 0 &&
              static_cast<int>(HardEvent::M_FIX) == 17 &&
              static_cast<int>(HardEvent::FIX_FIX) == 34 && static_cast<int>(HardEvent::MAX) == 35);

TEST(CubePipeTest, EventNamesFollowTheVendorOrder) {
  const char* const expected[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1",   "MTE2_V",    "V_MTE2",    "MTE3_V",
      "V_MTE3",    "M_V",       "V_M",    "V_V",      "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",
      "MTE2_M",    "M_MTE2",    "V_MTE1", "M_FIX",    "FIX_M",     "MTE3_MTE2", "MTE2_MTE3",
      "S_V",       "V_S",       "S_MTE2", "MTE2_S",   "S_MTE3",    "MTE3_S",    "MTE2_FIX",
      "FIX_MTE2",  "FIX_S",     "M_S",    "FIX_MTE3", "MTE1_FIX",  "FIX_MTE1",  "FIX_FIX"};
  for (int e = 0; e < static_cast<int>(HardEvent::MAX); ++e)
    EXPECT_STREQ(HardEventName(static_cast<HardEvent>(e)), expected[e]);
  EXPECT_STREQ(PipeName(PIPE_FIX), "PIPE_FIX");
  EXPECT_STREQ(PipeName(PIPE_MTE1), "PIPE_MTE1");
}

// Every cube memory through TPipe: queues hand out distinct buffers in the right arena, sized by
// the profile, and a second pipe after the first is destroyed starts over.
void CubeQueues(uint64_t* out) {
  const device::BlockContext* ctx = device::CurrentBlock();
  {
    TPipe pipe;
    TQue<TPosition::A1, 2> a1;
    TQue<TPosition::B1, 1> b1;
    TQue<TPosition::A2, 2> a2;
    TQue<TPosition::B2, 2> b2;
    TQue<TPosition::CO1, 1> co1;
    TBuf<TPosition::C2> bt;
    TBuf<TPosition::C2PIPE2GM> fb;
    pipe.InitBuffer(a1, 2, 128 * 1024);
    pipe.InitBuffer(b1, 1, 256 * 1024);
    pipe.InitBuffer(a2, 2, 32 * 1024);
    pipe.InitBuffer(b2, 2, 32 * 1024);
    pipe.InitBuffer(co1, 1, 128 * 1024);
    pipe.InitBuffer(bt, 1024);
    pipe.InitBuffer(fb, 2048);
    auto x = a1.AllocTensor<half>();
    auto y = a1.AllocTensor<half>();
    auto z = b1.AllocTensor<half>();
    auto p = a2.AllocTensor<half>();
    auto q = b2.AllocTensor<half>();
    auto c = co1.AllocTensor<float>();
    auto t = bt.Get<float>();
    auto f = fb.Get<uint64_t>();
    auto in = [](const void* ptr, const std::byte* base, size_t bytes) {
      const auto* b = static_cast<const std::byte*>(ptr);
      return b >= base && b < base + bytes;
    };
    out[0] = in(x.GetPhyAddr(), ctx->l1, ctx->l1_bytes) &&
             in(y.GetPhyAddr(), ctx->l1, ctx->l1_bytes) &&
             in(z.GetPhyAddr(), ctx->l1, ctx->l1_bytes) && x.GetPhyAddr() != y.GetPhyAddr();
    out[1] = in(p.GetPhyAddr(), ctx->l0a, ctx->l0a_bytes) &&
             in(q.GetPhyAddr(), ctx->l0b, ctx->l0b_bytes);
    out[2] = in(c.GetPhyAddr(), ctx->l0c, ctx->l0c_bytes) && c.GetSize() == 32 * 1024;
    out[3] = in(t.GetPhyAddr(), ctx->bt, ctx->bt_bytes) && t.GetSize() == 256 &&
             t.GetPosition() == TPosition::C2;
    out[4] = in(f.GetPhyAddr(), ctx->fb, ctx->fb_bytes) && f.GetSize() == 256;
    a1.FreeTensor(x);
    a1.FreeTensor(y);
    b1.FreeTensor(z);
    a2.FreeTensor(p);
    b2.FreeTensor(q);
    co1.FreeTensor(c);
  }
  TPipe again;
  TBuf<TPosition::A1> whole;
  // The first pipe's L1 came back: the whole of the profile's L1 is free again.
  const auto l1_bytes = static_cast<uint32_t>(ctx->l1_bytes);
  again.InitBuffer(whole, l1_bytes);
  out[5] = whole.Get<uint8_t>().GetSize() == l1_bytes;
}

TEST(CubePipeTest, QueuesInEveryCubeMemory) {
  for (bool checked : {false, true}) {
    testing::CheckedScope scope(checked);
    for (const char* profile : {"native", "ascend910b"}) {
      testing::ProfileScope p(profile);
      testing::DeviceBuffer<uint64_t> out(6);
      Status st = RunCube("cube_queues", KernelType::kAic, 3, CubeQueues, out.get());
      ASSERT_TRUE(st.ok()) << st.ToString();
      for (uint64_t v : out.ToHost())
        EXPECT_EQ(v, 1u) << profile;
    }
  }
}

void CubeQueueOnVector() {
  TPipe pipe;
  TQue<TPosition::A2, 1> a2;
  pipe.InitBuffer(a2, 1, 512);
}
void AllocatorWrongPosition() {
  LocalMemAllocator<Hardware::L0A> l0a;
  (void)l0a.Alloc<TPosition::B2, half>(256);
}
void AllocatorOnVector() {
  LocalMemAllocator<Hardware::L1> l1;
  (void)l1.Alloc<TPosition::A1, half>(16);
}

TEST(CubePipeTest, CubeMemoryMisuse) {
  Status st = testing::RunKernel("a2_on_aiv", 1, CubeQueueOnVector);
  EXPECT_TRUE(Contains(st, "L0A buffer size is 512, exceeds the limit 0 (A2 on a AIV core)"))
      << st.ToString();
  st = RunCube("wrong_pos", KernelType::kAic, 1, AllocatorWrongPosition);
  EXPECT_TRUE(Contains(st, "LocalMemAllocator::Alloc: position B2 is not in L0A")) << st.ToString();
  st = testing::RunKernel("l1_on_aiv", 1, AllocatorOnVector);
  EXPECT_TRUE(Contains(st, "LocalMemAllocator: a AIV core has no L1")) << st.ToString();
}

}  // namespace
}  // namespace tessera::kernel
