#include "tessera/device/launch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <vector>

#include "test_util.h"

namespace tessera::device {
namespace {

using testing::Contains;

struct Seen {
  std::mutex mu;
  std::vector<BlockContext> blocks;
};

void RecordContext(Seen* seen) {
  BlockContext copy = *CurrentBlock();
  // Touch the whole arena: it must be this block's own memory.
  if (copy.ub) std::fill(copy.ub, copy.ub + copy.ub_bytes, std::byte{0x11});
  if (copy.l0c) std::fill(copy.l0c, copy.l0c + copy.l0c_bytes, std::byte{0x22});
  std::lock_guard<std::mutex> lock(seen->mu);
  seen->blocks.push_back(copy);
}

TEST(LaunchTest, EveryBlockRunsOnceWithItsIndex) {
  for (const char* profile : {"native", "ascend910b"}) {
    testing::ProfileScope scope(profile);
    for (uint32_t dim : {1u, 7u, 48u, 1000u}) {
      Seen seen;
      ASSERT_TRUE(Launch(RecordContext, dim, Stream(), &seen).ok());
      ASSERT_TRUE(Stream().Synchronize().ok());
      ASSERT_EQ(seen.blocks.size(), dim);
      std::set<uint32_t> indices;
      for (const auto& b : seen.blocks) {
        indices.insert(b.block_idx);
        EXPECT_EQ(b.block_num, dim);
        EXPECT_EQ(b.sub_block_num, 1u);
        EXPECT_EQ(b.core_type, CoreType::kAiv);
        EXPECT_EQ(b.ub_bytes, CurrentArch().ub_bytes);
        EXPECT_NE(b.ub, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b.ub) % 32, 0u);
        EXPECT_EQ(b.l1, nullptr);
      }
      EXPECT_EQ(indices.size(), dim);
      EXPECT_EQ(*indices.rbegin(), dim - 1);
    }
  }
}

TEST(LaunchTest, CubeLaunchGetsCubeBuffers) {
  testing::ProfileScope scope("ascend910b");
  Seen seen;
  ASSERT_TRUE(
      Launch(LaunchConfig{5, KernelType::kAic, "cube"}, RecordContext, Stream(), &seen).ok());
  ASSERT_TRUE(Stream().Synchronize().ok());
  ASSERT_EQ(seen.blocks.size(), 5u);
  for (const auto& b : seen.blocks) {
    EXPECT_EQ(b.core_type, CoreType::kAic);
    EXPECT_EQ(b.ub, nullptr);
    EXPECT_EQ(b.l1_bytes, 512u << 10);
    EXPECT_EQ(b.l0a_bytes, 64u << 10);
    EXPECT_EQ(b.l0b_bytes, 64u << 10);
    EXPECT_EQ(b.l0c_bytes, 128u << 10);
  }
}

TEST(LaunchTest, MixLaunchFormsGroupsOfOneCubeAndTwoVectorCores) {
  testing::ProfileScope scope("ascend910b");
  Seen seen;
  const uint32_t groups = 24;
  ASSERT_TRUE(
      Launch(LaunchConfig{groups, KernelType::kMix, "mix"}, RecordContext, Stream(), &seen).ok());
  ASSERT_TRUE(Stream().Synchronize().ok());
  ASSERT_EQ(seen.blocks.size(), groups * 3);
  std::set<uint32_t> aic, aiv;
  for (const auto& b : seen.blocks) {
    EXPECT_EQ(b.block_num, groups);
    EXPECT_EQ(b.kernel_type, KernelType::kMix);
    if (b.core_type == CoreType::kAic) {
      aic.insert(b.block_idx);
      EXPECT_EQ(b.sub_block_num, 1u);
      EXPECT_EQ(b.task_ration, 1u);
    } else {
      aiv.insert(b.block_idx);
      EXPECT_EQ(b.sub_block_num, 2u);
      EXPECT_EQ(b.task_ration, 2u);
      EXPECT_EQ(b.block_idx, b.group * 2 + b.sub_block_idx);  // flattened vector index
      EXPECT_EQ(b.block_idx / b.sub_block_num, b.group);      // AI-core id
    }
  }
  EXPECT_EQ(aic.size(), groups);
  EXPECT_EQ(aiv.size(), groups * 2);
  EXPECT_EQ(*aiv.rbegin(), groups * 2 - 1);
}

void Nop() {}

TEST(LaunchTest, BadLaunchArgumentsAreErrors) {
  Status zero = Launch(LaunchConfig{0, KernelType::kAiv, "nop"}, Nop, Stream());
  EXPECT_EQ(zero.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(zero, "kernel 'nop': blockDim is 0; expected 1..65535")) << zero.ToString();
  EXPECT_TRUE(Contains(Launch(Nop, 65536, Stream()), "blockDim is 65536"));
  EXPECT_TRUE(Contains(Launch(LaunchConfig{1, static_cast<KernelType>(7), "nop"}, Nop, Stream()),
                       "kernel type 7"));
  void (*null_kernel)() = nullptr;
  EXPECT_TRUE(Contains(Launch(null_kernel, 1, Stream()), "kernel is null"));
}

void CaptureValues(int* out, int a, double b, std::vector<int> v) {
  out[GetBlockIdx()] = a + static_cast<int>(b) + static_cast<int>(v.size());
}

TEST(LaunchTest, ArgumentsAreCopiedAtLaunch) {
  auto s = Stream::Create();
  std::vector<int> out(6, 0);
  std::vector<int> vec = {1, 2, 3};
  int a = 10;
  ASSERT_TRUE(Launch(CaptureValues, 6, *s, out.data(), a, 2.5, vec).ok());
  a = 1000;  // changing the caller's variables after the launch has no effect
  vec.push_back(4);
  ASSERT_TRUE(s->Synchronize().ok());
  for (int v : out)
    EXPECT_EQ(v, 15);
}

void NamedFromSymbol(std::atomic<int>* c) {
  c->fetch_add(1);
  FailBlock(StatusCode::kInternal, "named");
}

TEST(LaunchTest, KernelNameComesFromConfigOrSymbol) {
  std::atomic<int> c{0};
  auto s = Stream::Create();
  ASSERT_TRUE(Launch(LaunchConfig{1, KernelType::kAiv, "my_kernel"}, NamedFromSymbol, *s, &c).ok());
  EXPECT_TRUE(Contains(s->Synchronize(), "kernel 'my_kernel' block 0"));
  s->ResetError();
  ASSERT_TRUE(Launch(NamedFromSymbol, 1, *s, &c).ok());
  Status unnamed = s->Synchronize();
  // Without a configured name the error still identifies the kernel (symbol or address).
  EXPECT_TRUE(Contains(unnamed, "kernel '")) << unnamed.ToString();
  EXPECT_EQ(c.load(), 2);
}

TEST(LaunchTest, BlockQueriesOutsideAKernel) {
  EXPECT_EQ(CurrentBlock(), nullptr);
  EXPECT_EQ(GetBlockIdx(), 0u);
  EXPECT_EQ(GetBlockNum(), 1u);
  EXPECT_THROW(SyncAll(), std::logic_error);
}

}  // namespace
}  // namespace tessera::device
