#include "tessera/device/launch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tessera/device/detail/block_pool.h"
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

// Small launches: up to 64 blocks that move at most 32 KiB together run on the calling thread
// when the stream is idle, as fibers, with the semantics of any launch.
struct Threads {
  std::mutex mu;
  std::vector<std::thread::id> ids;
  std::vector<uint32_t> blocks;
};

void RecordThread(Threads* seen, std::atomic<int>* order, int* position, int* values) {
  const uint32_t idx = GetBlockIdx();
  const uint32_t n = GetBlockNum();
  values[idx] = static_cast<int>(idx) * 3 + 1;
  if (n <= CurrentArch().aiv_cores) {  // SyncAll needs every block resident
    SyncAll();  // every block's value is visible after the barrier, also on one thread
    int sum = 0;
    for (uint32_t i = 0; i < n; ++i)
      sum += values[i];
    EXPECT_EQ(sum, static_cast<int>(n * (3 * n - 1) / 2));
  }
  std::lock_guard<std::mutex> lock(seen->mu);
  seen->ids.push_back(std::this_thread::get_id());
  seen->blocks.push_back(idx);
  if (idx == 0) *position = order->fetch_add(1);
}

TEST(LaunchTest, SmallMultiBlockLaunchRunsOnTheCallingThreadWhenTheStreamIsIdle) {
  auto s = Stream::Create();
  ASSERT_TRUE(s.ok());
  std::mt19937 rng(11);
  for (uint32_t dim : {2u, 3u, 7u, 64u}) {
    Threads seen;
    std::atomic<int> order{0};
    int position = -1;
    std::vector<int> values(dim);
    LaunchConfig config{dim, KernelType::kAiv, "small"};
    config.bytes_moved = 1 + rng() % (32 * 1024);
    ASSERT_TRUE(Launch(config, RecordThread, *s, &seen, &order, &position, values.data()).ok());
    // Done before Launch returned: no synchronize needed to see every block.
    ASSERT_EQ(seen.ids.size(), dim);
    for (std::thread::id id : seen.ids)
      EXPECT_EQ(id, std::this_thread::get_id());
    EXPECT_EQ(std::set<uint32_t>(seen.blocks.begin(), seen.blocks.end()).size(), dim);
    EXPECT_TRUE(s->Synchronize().ok());
  }
}

TEST(LaunchTest, LargeOrUnsizedMultiBlockLaunchGoesToTheWorkers) {
  auto s = Stream::Create();
  ASSERT_TRUE(s.ok());
  for (uint64_t bytes : {uint64_t{0}, uint64_t{32 * 1024 + 1}}) {
    Threads seen;
    std::atomic<int> order{0};
    int position = -1;
    std::vector<int> values(4);
    LaunchConfig config{4, KernelType::kAiv, "large"};
    config.bytes_moved = bytes;
    ASSERT_TRUE(Launch(config, RecordThread, *s, &seen, &order, &position, values.data()).ok());
    ASSERT_TRUE(s->Synchronize().ok());
    ASSERT_EQ(seen.ids.size(), 4u);
    for (std::thread::id id : seen.ids)
      EXPECT_NE(id, std::this_thread::get_id()) << "bytes_moved " << bytes;
  }
}

void SlowFirst(std::atomic<int>* order, int* position) {
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (GetBlockIdx() == 0) *position = order->fetch_add(1);
}

TEST(LaunchTest, SmallLaunchBehindQueuedWorkKeepsStreamOrder) {
  auto s = Stream::Create();
  ASSERT_TRUE(s.ok());
  std::atomic<int> order{0};
  int slow = -1, fast = -1;
  ASSERT_TRUE(Launch(LaunchConfig{2, KernelType::kAiv, "slow"}, SlowFirst, *s, &order, &slow).ok());
  Threads seen;
  std::vector<int> values(3);
  LaunchConfig config{3, KernelType::kAiv, "small"};
  config.bytes_moved = 4096;
  ASSERT_TRUE(Launch(config, RecordThread, *s, &seen, &order, &fast, values.data()).ok());
  ASSERT_TRUE(s->Synchronize().ok());
  EXPECT_EQ(slow, 0);
  EXPECT_EQ(fast, 1);
}

void FailBlockTwo() {
  if (GetBlockIdx() == 2) throw std::runtime_error("block two broke");
}

TEST(LaunchTest, SmallLaunchFailureIsTheStreamsStickyError) {
  auto s = Stream::Create();
  ASSERT_TRUE(s.ok());
  LaunchConfig config{5, KernelType::kAiv, "fails"};
  config.bytes_moved = 100;
  ASSERT_TRUE(Launch(config, FailBlockTwo, *s).ok());
  const Status st = s->Synchronize();
  EXPECT_TRUE(Contains(st, "kernel 'fails' block 2")) << st.ToString();
  EXPECT_TRUE(Contains(st, "block two broke")) << st.ToString();
  // Refused while the error is sticky; runs again after ResetError.
  EXPECT_FALSE(Launch(config, FailBlockTwo, *s).ok());
  s->ResetError();
  config.block_dim = 2;
  ASSERT_TRUE(Launch(config, FailBlockTwo, *s).ok());
  EXPECT_TRUE(s->Synchronize().ok());
}

void WaitForever() {
  CrossCoreWaitFlag(CrossCoreMode::kAllCores, 3);  // nobody sets it
}

TEST(LaunchTest, SmallLaunchDeadlockIsReported) {
  auto s = Stream::Create();
  ASSERT_TRUE(s.ok());
  LaunchConfig config{3, KernelType::kAiv, "stuck"};
  config.bytes_moved = 64;
  ASSERT_TRUE(Launch(config, WaitForever, *s).ok());
  const Status st = s->Synchronize();
  EXPECT_TRUE(Contains(st, "deadlocked")) << st.ToString();
}

// The block pool at thread exit: an object freed by a thread_local destructor that runs after the
// pool flushed the thread's blocks still goes to the shared list (and the next Take returns it).
struct PoolProbe {
  char bytes[48];
};
using ProbePool = detail::BlockPool<PoolProbe>;

struct LateFree {
  void* block = nullptr;
  ~LateFree() { ProbePool::Give(block, sizeof(PoolProbe)); }
};

TEST(BlockPoolTest, BlockFreedAfterTheThreadsFlushReachesTheSharedList) {
  void* late = nullptr;
  std::thread([&late] {
    thread_local LateFree holder;  // constructed before the pool's per-thread flusher: freed after
    void* first = ProbePool::Take(sizeof(PoolProbe));
    ProbePool::Give(first, sizeof(PoolProbe));  // the flusher starts here
    holder.block = ProbePool::Take(sizeof(PoolProbe));
    late = holder.block;
  }).join();
  ASSERT_NE(late, nullptr);
  void* again = ProbePool::Take(sizeof(PoolProbe));  // this thread holds none: the shared list's
  EXPECT_EQ(again, late);
  ProbePool::Give(again, sizeof(PoolProbe));
}

}  // namespace
}  // namespace tessera::device
