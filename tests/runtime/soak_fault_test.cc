// Load and faults. A bounded soak: 16 host threads making mixed two-stage calls on their own
// streams for a few seconds, every result checked against a double reference, RSS bounded. Fault
// injection: allocations that cannot be had, a kernel that throws in the middle of a stream while
// other streams keep computing, and a package deleted between calls - each gives a clean error and
// no lost or corrupted result elsewhere.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

TensorDesc Desc(int64_t n) {
  return TensorDesc{DataType::kFloat32, *Shape::Make({n}), Format::kND, {}};
}

// Resident set size in bytes.
size_t Rss() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// z = op(x, y) for op in Add, Sub, Mul, Maximum on `n` floats; false (with a message) on any
// error or wrong element.
bool CheckedCall(const std::string& op, int64_t n, std::mt19937& rng, const device::Stream& stream,
                 std::string* error) {
  std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
  std::vector<float> a(n), b(n), z(n);
  for (int64_t i = 0; i < n; ++i)
    a[i] = dist(rng), b[i] = dist(rng);
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  void* x = *device::Malloc(bytes);
  void* y = *device::Malloc(bytes);
  void* out = *device::Malloc(bytes);
  bool ok =
      device::MemcpyAsync(x, bytes, a.data(), bytes, device::MemcpyKind::kHostToDevice, stream)
          .ok() &&
      device::MemcpyAsync(y, bytes, b.data(), bytes, device::MemcpyKind::kHostToDevice, stream)
          .ok();
  OpCall call;
  call.op_type = op;
  call.inputs = {TensorArg{Desc(n), x}, TensorArg{Desc(n), y}};
  call.outputs = {TensorArg{Desc(n), out}};
  uint64_t ws = 0;
  auto exec = PrepareOp(call, &ws);
  Status st = exec.ok() ? ExecuteOp(**exec, nullptr, 0, stream) : exec.status();
  if (st.ok()) {
    st =
        device::MemcpyAsync(z.data(), bytes, out, bytes, device::MemcpyKind::kDeviceToHost, stream);
  }
  if (st.ok()) st = stream.Synchronize();
  ok = ok && st.ok();
  if (!st.ok()) *error = op + " n=" + std::to_string(n) + ": " + st.ToString();
  for (int64_t i = 0; ok && i < n; ++i) {
    const double want = op == "Add"   ? double{a[i]} + b[i]
                        : op == "Sub" ? double{a[i]} - b[i]
                        : op == "Mul" ? double{a[i]} * b[i]
                                      : std::max(double{a[i]}, double{b[i]});
    if (z[i] != static_cast<float>(want)) {
      ok = false;
      *error = op + " n=" + std::to_string(n) + " element " + std::to_string(i) + ": got " +
               std::to_string(z[i]) + ", want " + std::to_string(want);
    }
  }
  for (void* p : {x, y, out})
    (void)device::Free(p);
  return ok;
}

TEST(SoakTest, SixteenThreadsMixedCallsForAFewSeconds) {
  constexpr int kThreads = 16;
  const auto duration = std::chrono::seconds(5);
  const char* ops[] = {"Add", "Sub", "Mul", "Maximum"};
  const int64_t sizes[] = {1, 7, 15, 16, 17, 31, 255, 1000, 4097, 65537};
  // Warm up (first misses load the package) before measuring RSS.
  {
    std::mt19937 rng(1);
    auto s = *device::Stream::Create();
    std::string error;
    for (const char* op : ops)
      ASSERT_TRUE(CheckedCall(op, 4097, rng, s, &error)) << error;
  }
  const size_t rss_before = Rss();
  std::atomic<int> calls{0}, failures{0};
  std::atomic<bool> reported{false};
  std::string first_error;
  const auto deadline = std::chrono::steady_clock::now() + duration;
  std::vector<std::thread> threads;
  const unsigned seed = std::random_device{}();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(seed + t);
      auto stream = device::Stream::Create();
      if (!stream.ok()) {
        failures++;
        return;
      }
      while (std::chrono::steady_clock::now() < deadline) {
        std::string error;
        const bool ok = CheckedCall(ops[rng() % 4], sizes[rng() % 10], rng, *stream, &error);
        calls++;
        if (!ok && !reported.exchange(true)) first_error = error;
        if (!ok) failures++;
      }
    });
  }
  for (auto& th : threads)
    th.join();
  const size_t rss_after = Rss();
  RecordProperty("calls", calls.load());
  RecordProperty("seed", std::to_string(seed));
  EXPECT_EQ(failures.load(), 0) << first_error;
  EXPECT_GT(calls.load(), kThreads);
  // Shapes repeat, so the cache and the memory pool stop growing: no more than 256 MiB of growth.
  EXPECT_LT(rss_after, rss_before + (size_t{256} << 20))
      << "RSS grew from " << rss_before << " to " << rss_after;
  std::printf("soak: %d calls on %d threads, RSS %zu -> %zu bytes\n", calls.load(), kThreads,
              rss_before, rss_after);
}

TEST(FaultTest, AllocationFailuresAreCleanErrors) {
  // More than any machine has: Malloc and a call whose output cannot be allocated both fail with
  // a message, and the runtime keeps working.
  Result<void*> huge = device::Malloc(size_t{1} << 62);
  ASSERT_FALSE(huge.ok());
  EXPECT_FALSE(huge.status().message().empty());
  std::mt19937 rng(3);
  auto stream = *device::Stream::Create();
  std::string error;
  EXPECT_TRUE(CheckedCall("Add", 4097, rng, stream, &error)) << error;
  // A tensor description whose byte size overflows is refused before anything is allocated.
  void* p = *device::Malloc(64);
  OpCall call;
  call.op_type = "Add";
  const TensorDesc big{
      DataType::kFloat32, *Shape::Make({int64_t{1} << 40, int64_t{1} << 40}), Format::kND, {}};
  call.inputs = {TensorArg{big, p}, TensorArg{big, p}};
  call.outputs = {TensorArg{big, p}};
  uint64_t ws = 0;
  auto exec = PrepareOp(call, &ws);
  EXPECT_FALSE(exec.ok());
  (void)device::Free(p);
}

void ThrowingKernel(int64_t* flag) {
  if (*flag == 0) throw std::runtime_error("injected kernel fault");
}

TEST(FaultTest, KernelExceptionMidStreamLeavesOtherStreamsCorrect) {
  auto faulty = *device::Stream::Create();
  auto healthy = *device::Stream::Create();
  std::mt19937 rng(5);
  std::string error;
  ASSERT_TRUE(CheckedCall("Mul", 1000, rng, faulty, &error)) << error;
  int64_t* flag = static_cast<int64_t*>(*device::Malloc(sizeof(int64_t)));
  ASSERT_TRUE(device::Memset(flag, sizeof(int64_t), 0, sizeof(int64_t)).ok());
  ASSERT_TRUE(device::Launch(ThrowingKernel, 4, faulty, flag).ok());
  std::atomic<bool> healthy_ok{true};
  std::thread other([&] {
    std::mt19937 r(7);
    std::string e;
    for (int i = 0; i < 20; ++i)
      healthy_ok = healthy_ok && CheckedCall("Add", 4097, r, healthy, &e);
  });
  const Status st = faulty.Synchronize();
  other.join();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("injected kernel fault"), std::string_view::npos) << st.ToString();
  EXPECT_TRUE(healthy_ok.load());
  // The faulty stream keeps its error until reset, then works again.
  faulty.ResetError();
  EXPECT_TRUE(CheckedCall("Sub", 255, rng, faulty, &error)) << error;
  (void)device::Free(flag);
}

TEST(FaultTest, PackageDeletedBetweenCalls) {
  const fs::path dir = fs::temp_directory_path() / ("tessera_deleted_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(TESSERA_TEST_CUSTOM_PACKAGE_DIR, dir, fs::copy_options::recursive);
  setenv("TESSERA_CUSTOM_OPP_PATH", dir.c_str(), 1);
  ClearParamCache();
  void* p = *device::Malloc(4 * 64);
  OpCall call;
  call.op_type = "Add";
  call.inputs = {TensorArg{Desc(64), p}, TensorArg{Desc(64), p}};
  call.outputs = {TensorArg{Desc(64), p}};
  uint64_t ws = 0;
  auto prepared = PrepareOp(call, &ws);
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_NE((*prepared)->package(), "builtin");
  fs::remove_all(dir);
  // An executor prepared before runs: its library stays loaded.
  auto stream = *device::Stream::Create();
  void* workspace = ws > 0 ? *device::Malloc(ws) : nullptr;
  const Status run = ExecuteOp(**prepared, workspace, ws, stream);
  EXPECT_TRUE(run.ok()) << run.ToString();
  EXPECT_TRUE(stream.Synchronize().ok());
  if (workspace != nullptr) (void)device::Free(workspace);
  // A new call (cache cleared, as after installing packages) no longer sees the package: the
  // search says why and the built-in Add runs.
  ClearParamCache();
  auto after = PrepareOp(call, &ws);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ((*after)->package(), "builtin");
  std::mt19937 rng(9);
  std::string error;
  EXPECT_TRUE(CheckedCall("Add", 17, rng, stream, &error)) << error;
  unsetenv("TESSERA_CUSTOM_OPP_PATH");
  ClearParamCache();
  (void)device::Free(p);
}

}  // namespace
}  // namespace tessera::runtime
