// Which package serves an op: TESSERA_CUSTOM_OPP_PATH, then vendors by load_priority, then the
// built-in package - end to end with the example custom package that overrides Add.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/runtime/workspace_pool.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

class EnvScope {
 public:
  EnvScope(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~EnvScope() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

struct AddCall {
  std::vector<float> a, b;
  void* x1 = nullptr;
  void* x2 = nullptr;
  void* y = nullptr;
  OpCall call;

  explicit AddCall(int64_t n, DataType dtype = DataType::kFloat32) : a(n), b(n) {
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> dist(-3, 3);
    for (int64_t i = 0; i < n; ++i)
      a[i] = dist(rng), b[i] = dist(rng);
    const size_t bytes = static_cast<size_t>(n) * 4;
    x1 = *device::Malloc(bytes);
    x2 = *device::Malloc(bytes);
    y = *device::Malloc(bytes);
    EXPECT_TRUE(device::Memcpy(x1, bytes, a.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
    EXPECT_TRUE(device::Memcpy(x2, bytes, b.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
    const TensorDesc desc{dtype, *Shape::Make({n}), Format::kND, {}};
    call.op_type = "Add";
    call.inputs = {TensorArg{desc, x1}, TensorArg{desc, x2}};
    call.outputs = {TensorArg{desc, y}};
  }
  ~AddCall() {
    for (void* p : {x1, x2, y})
      (void)device::Free(p);
  }
  // Runs the call; returns the package that served it, checking the sum.
  std::string Run() {
    uint64_t ws = 0;
    auto exec = PrepareOp(call, &ws);
    EXPECT_TRUE(exec.ok()) << exec.status().ToString();
    if (!exec.ok()) return "";
    void* workspace = ws ? *device::Malloc(ws) : nullptr;
    Status st = ExecuteOp(**exec, workspace, ws, device::Stream());
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(device::Stream().Synchronize().ok());
    std::vector<float> out(a.size());
    EXPECT_TRUE(device::Memcpy(out.data(), out.size() * 4, y, out.size() * 4,
                               device::MemcpyKind::kDeviceToHost)
                    .ok());
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i], a[i] + b[i]) << i;
    if (workspace) (void)device::Free(workspace);
    return (*exec)->package();
  }
};

const fs::path kCustom = TESSERA_TEST_CUSTOM_PACKAGE_DIR;

TEST(PackagePriorityTest, BuiltinWhenNothingElseIsConfigured) {
  unsetenv("TESSERA_CUSTOM_OPP_PATH");
  unsetenv("TESSERA_OPP_PATH");
  ClearParamCache();
  AddCall add(4097);
  EXPECT_EQ(add.Run(), "builtin");
}

TEST(PackagePriorityTest, CustomPathOverridesBuiltinAndIsReadAtCallTime) {
  AddCall add(4097);
  const fs::path not_a_dir = fs::temp_directory_path() / "tessera_not_a_dir";
  std::ofstream(not_a_dir) << "x";
  {
    // A non-directory entry is skipped; the next one is used. The search runs when a call misses
    // the parameter cache, so a path set after start-up applies to calls not made before.
    EnvScope env("TESSERA_CUSTOM_OPP_PATH", not_a_dir.string() + ":" + kCustom.string());
    ClearParamCache();
    EXPECT_EQ(add.Run(), "custom_add");
  }
  EXPECT_EQ(add.Run(), "custom_add");  // cached: the plan is reused until the cache is cleared
  ClearParamCache();
  EXPECT_EQ(add.Run(), "builtin");
}

TEST(PackagePriorityTest, VendorsByLoadPriorityThenBuiltin) {
  const fs::path opp = fs::temp_directory_path() / "tessera_opp_test";
  fs::remove_all(opp);
  fs::create_directories(opp / "vendors");
  fs::create_directory_symlink(kCustom, opp / "vendors" / "acme");
  fs::create_directory(opp / "vendors" / "empty");  // no manifest: skipped with a reason
  std::ofstream(opp / "vendors" / "config.ini")
      << "# vendors, high to low\nload_priority=empty,acme\n";
  AddCall add(31);
  {
    EnvScope env("TESSERA_OPP_PATH", opp.string());
    ClearParamCache();
    EXPECT_EQ(add.Run(), "custom_add");
  }
  {
    std::ofstream(opp / "vendors" / "config.ini") << "load_priority=empty\n";
    EnvScope env("TESSERA_OPP_PATH", opp.string());
    ClearParamCache();  // config.ini changed on disk: cached plans still name the old package
    EXPECT_EQ(add.Run(), "builtin");
  }
  fs::remove_all(opp);
}

TEST(PackagePriorityTest, FirstPackageWithTheOpWinsEvenForOtherDtypes) {
  EnvScope env("TESSERA_CUSTOM_OPP_PATH", kCustom.string());
  ClearParamCache();
  AddCall add(8, DataType::kFloat16);
  uint64_t ws = 0;
  auto exec = PrepareOp(add.call, &ws);
  ASSERT_FALSE(exec.ok());
  // The custom package declares float32 only; CANN does not fall through to the next package.
  EXPECT_NE(std::string(exec.status().message())
                .find("Supported dtype and format list is:\n  x1(DT_FLOAT, ND), x2(DT_FLOAT, ND), "
                      "y(DT_FLOAT, ND)"),
            std::string::npos)
      << exec.status().ToString();
}

TEST(PackagePriorityTest, WorkspaceBelowRequiredIsRejectedWithBothSizes) {
  EnvScope env("TESSERA_CUSTOM_OPP_PATH", kCustom.string());
  ClearParamCache();
  AddCall add(100);
  uint64_t ws = 0;
  auto exec = PrepareOp(add.call, &ws);
  ASSERT_TRUE(exec.ok()) << exec.status().ToString();
  ASSERT_GT(ws, 0u);
  Status st = ExecuteOp(**exec, nullptr, ws - 1, device::Stream());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "The passed workspace size " + std::to_string(ws - 1) +
                              " does not meet the minimum workspace size " + std::to_string(ws));
}

TEST(PackagePriorityTest, UnknownOpListsEverySearchedPath) {
  EnvScope env("TESSERA_CUSTOM_OPP_PATH", kCustom.string());
  OpCall call;
  call.op_type = "Frobnicate";
  const TensorDesc desc{DataType::kFloat32, *Shape::Make({4}), Format::kND, {}};
  void* p = *device::Malloc(16);
  call.outputs = {TensorArg{desc, p}};
  uint64_t ws = 0;
  auto exec = PrepareOp(call, &ws);
  ASSERT_FALSE(exec.ok());
  const std::string msg(exec.status().message());
  EXPECT_NE(msg.find("Frobnicate"), std::string::npos) << msg;
  EXPECT_NE(msg.find(kCustom.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find(BuiltinPackageDir()), std::string::npos) << msg;
  (void)device::Free(p);
}

}  // namespace
}  // namespace tessera::runtime

namespace tessera::runtime {
namespace {

// One pooled workspace serves many calls of different sizes; it grows only when a call needs more
// and every result stays right (the custom Add stages its data through the workspace).
TEST(WorkspacePoolTest, ReusedAcrossCallsOfDifferentSizes) {
  EnvScope env("TESSERA_CUSTOM_OPP_PATH", kCustom.string());
  ClearParamCache();
  WorkspacePool pool;
  uint64_t largest = 0;
  for (int round = 0; round < 3; ++round) {
    for (int64_t n : {int64_t{7}, int64_t{4097}, int64_t{100}, int64_t{200003}, int64_t{33}}) {
      AddCall add(n);
      uint64_t ws = 0;
      auto exec = PrepareOp(add.call, &ws);
      ASSERT_TRUE(exec.ok()) << exec.status().ToString();
      ASSERT_GT(ws, 0u);
      largest = std::max(largest, ws);
      auto workspace = pool.Get(ws);
      ASSERT_TRUE(workspace.ok()) << workspace.status().ToString();
      ASSERT_GE(pool.capacity(), ws);
      ASSERT_TRUE(ExecuteOp(**exec, *workspace, ws, device::Stream()).ok());
      ASSERT_TRUE(device::Stream().Synchronize().ok());
      std::vector<float> out(add.a.size());
      ASSERT_TRUE(device::Memcpy(out.data(), out.size() * 4, add.y, out.size() * 4,
                                 device::MemcpyKind::kDeviceToHost)
                      .ok());
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_EQ(out[i], add.a[i] + add.b[i]) << n << " @" << i;
    }
  }
  EXPECT_LE(pool.grows(), 3u);  // grew for the first few sizes, then reused for 15 calls
  EXPECT_GE(pool.capacity(), largest);
  EXPECT_EQ(*pool.Get(0), nullptr);
  ASSERT_TRUE(pool.Release().ok());
  EXPECT_EQ(pool.capacity(), 0u);
}

}  // namespace
}  // namespace tessera::runtime
