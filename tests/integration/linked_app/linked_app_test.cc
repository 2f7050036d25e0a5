// An application that links operator package linked_add (statically or as a shared library; the
// same source is built both ways). The linked package has the highest priority: it serves Add
// ahead of a TESSERA_CUSTOM_OPP_PATH package and the built-in package, serves ScaledAdd which only
// it defines, and ops it does not define still come from the built-in package.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_runtime.h"
#include "runtime/package/package_search.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

class EnvScope {
 public:
  EnvScope(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
    ClearParamCache();  // the search runs on cache misses
  }
  ~EnvScope() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
    ClearParamCache();
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A binary float32 call on random data: op(x1, x2) -> y.
struct BinaryCall {
  std::vector<float> a, b, out;
  void* x1 = nullptr;
  void* x2 = nullptr;
  void* y = nullptr;
  OpCall call;
  PlanInfo info;

  BinaryCall(const std::string& op, int64_t n, unsigned seed) : a(n), b(n), out(n) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-4, 4);
    for (int64_t i = 0; i < n; ++i)
      a[i] = dist(rng), b[i] = dist(rng);
    const size_t bytes = static_cast<size_t>(n) * sizeof(float);
    x1 = *device::Malloc(bytes);
    x2 = *device::Malloc(bytes);
    y = *device::Malloc(bytes);
    EXPECT_TRUE(device::Memcpy(x1, bytes, a.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
    EXPECT_TRUE(device::Memcpy(x2, bytes, b.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
    const TensorDesc desc{DataType::kFloat32, *Shape::Make({n}), Format::kND, {}};
    call.op_type = op;
    call.inputs = {TensorArg{desc, x1}, TensorArg{desc, x2}};
    call.outputs = {TensorArg{desc, y}};
  }
  ~BinaryCall() {
    for (void* p : {x1, x2, y})
      (void)device::Free(p);
  }
  BinaryCall(const BinaryCall&) = delete;
  BinaryCall& operator=(const BinaryCall&) = delete;

  // Runs the call and copies the result to `out`; returns the package that served it.
  std::string Run() {
    uint64_t ws = 0;
    auto exec = PrepareOp(call, &ws);
    EXPECT_TRUE(exec.ok()) << exec.status().ToString();
    if (!exec.ok()) return "";
    info = (*exec)->info();
    void* workspace = ws ? *device::Malloc(ws) : nullptr;
    EXPECT_TRUE(ExecuteOp(**exec, workspace, ws, device::Stream()).ok());
    EXPECT_TRUE(device::Stream().Synchronize().ok());
    if (workspace) (void)device::Free(workspace);
    const size_t bytes = out.size() * sizeof(float);
    EXPECT_TRUE(
        device::Memcpy(out.data(), bytes, y, bytes, device::MemcpyKind::kDeviceToHost).ok());
    return info.package;
  }
};

// The file the package was linked into: the program itself, or the shared linked library.
std::string ExpectedLibrary() {
  if (std::string(TESSERA_TEST_LINK_FORM) == "static") {
    return fs::read_symlink("/proc/self/exe").string();
  }
  return TESSERA_TEST_SHARED_LIBRARY;
}

TEST(LinkedPackage, RegisteredWithItsManifestAndTarget) {
  const LinkedPackages linked = ListLinkedPackages();
  EXPECT_TRUE(linked.warnings.empty());
  ASSERT_EQ(linked.packages.size(), 1u);
  const LinkedPackage& p = linked.packages[0];
  EXPECT_EQ(p.name, "linked_add");
  EXPECT_EQ(p.soc, TESSERA_TEST_LINKED_SOC);
  EXPECT_EQ(p.Problem(), "");
  EXPECT_NE(p.manifest_json.find("\"package\": \"linked_add\""), std::string::npos);
  EXPECT_TRUE(fs::equivalent(p.library, ExpectedLibrary())) << p.library;
}

TEST(LinkedPackage, IsTheFirstCandidateOfTheSearch) {
  EnvScope custom("TESSERA_CUSTOM_OPP_PATH", TESSERA_TEST_CUSTOM_PACKAGE_DIR);
  Result<PackageSearch> search = ResolvePackageSearchWithLinked(ProcessEnv(), BuiltinPackageDir());
  ASSERT_TRUE(search.ok()) << search.status().ToString();
  ASSERT_EQ(search->candidates.size(), 3u);
  const PackageCandidate& first = search->candidates[0];
  EXPECT_EQ(first.origin, PackageOrigin::kLinked);
  EXPECT_TRUE(first.used);
  EXPECT_EQ(first.Describe(),
            "linked into the application: linked_add (" + first.dir.string() + ")");
  EXPECT_EQ(search->candidates[1].origin, PackageOrigin::kCustomPath);
  EXPECT_EQ(search->candidates[2].origin, PackageOrigin::kBuiltIn);

  // Loaded, the linked package offers only the binaries of its one target.
  const PackageSet set = LoadPackages(*search);
  ASSERT_EQ(set.packages.size(), 3u);
  for (const OpManifest& op : set.packages[0].manifest.ops) {
    ASSERT_FALSE(op.binaries.empty()) << op.op;
    for (const ManifestBinary& b : op.binaries)
      EXPECT_EQ(b.soc, TESSERA_TEST_LINKED_SOC) << op.op;
  }
}

TEST(LinkedPackage, BeatsTheCustomPathAndTheBuiltInPackage) {
  for (const bool with_custom : {false, true}) {
    SCOPED_TRACE(with_custom ? "with TESSERA_CUSTOM_OPP_PATH" : "alone");
    std::optional<EnvScope> custom;
    if (with_custom) custom.emplace("TESSERA_CUSTOM_OPP_PATH", TESSERA_TEST_CUSTOM_PACKAGE_DIR);
    BinaryCall add("Add", 10007, with_custom ? 3 : 4);
    EXPECT_EQ(add.Run(), "linked_add");
    EXPECT_EQ(add.info.soc, TESSERA_TEST_LINKED_SOC);
    EXPECT_EQ(add.info.binary, "linked into " + add.info.package_dir);
    for (size_t i = 0; i < add.out.size(); ++i)
      ASSERT_EQ(add.out[i], 1.0f * add.a[i] + add.b[i]) << i;
  }
  // Without the linked package the custom path would win: it is a real competitor.
  EnvScope custom("TESSERA_CUSTOM_OPP_PATH", TESSERA_TEST_CUSTOM_PACKAGE_DIR);
  Result<PackageSearch> search = ResolvePackageSearch(ProcessEnv(), BuiltinPackageDir());
  ASSERT_TRUE(search.ok());
  const PackageSet set = LoadPackages(*search);
  Result<OpMatch> without_linked = FindOp(set, "Add");
  ASSERT_TRUE(without_linked.ok());
  EXPECT_EQ(without_linked->package->manifest.package, "custom_add");
}

TEST(LinkedPackage, ServesTheOpOnlyItDefines) {
  for (const float alpha : {2.0f, -0.75f}) {
    BinaryCall scaled("ScaledAdd", 4099, static_cast<unsigned>(alpha * 100 + 7));
    if (alpha != 2.0f) scaled.call.attrs["alpha"] = alpha;  // 2 is the default
    EXPECT_EQ(scaled.Run(), "linked_add");
    for (size_t i = 0; i < scaled.out.size(); ++i)
      ASSERT_EQ(scaled.out[i], alpha * scaled.a[i] + scaled.b[i]) << i;
  }
}

TEST(LinkedPackage, OpsItDoesNotDefineComeFromTheBuiltInPackage) {
  BinaryCall mul("Mul", 5003, 11);
  EXPECT_EQ(mul.Run(), "builtin");
  for (size_t i = 0; i < mul.out.size(); ++i)
    ASSERT_EQ(mul.out[i], mul.a[i] * mul.b[i]) << i;
}

}  // namespace
}  // namespace tessera::runtime
