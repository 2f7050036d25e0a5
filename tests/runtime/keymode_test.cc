// End to end over tests/runtime/keymode_package: binaries chosen by an attribute value through
// simplified-key modes 1 and 2, a value no binary was built for, callback failures, and the same
// package built selectively (TILING_KEYS ScaleMode:0).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runtime/package/package.h"
#include "tessera/device/device.h"
#include "tessera/device/memory.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_runtime.h"
#include "tessera/tessera_nn.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

bool Contains(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

// Points TESSERA_CUSTOM_OPP_PATH at one package for the scope (the cache key does not hold the
// search path, so the cache is cleared on both ends).
class PackageScope {
 public:
  explicit PackageScope(const std::string& dir) {
    if (const char* old = std::getenv("TESSERA_CUSTOM_OPP_PATH")) old_ = old;
    setenv("TESSERA_CUSTOM_OPP_PATH", dir.c_str(), 1);
    ClearParamCache();
  }
  ~PackageScope() {
    if (old_) {
      setenv("TESSERA_CUSTOM_OPP_PATH", old_->c_str(), 1);
    } else {
      unsetenv("TESSERA_CUSTOM_OPP_PATH");
    }
    ClearParamCache();
  }

 private:
  std::optional<std::string> old_;
};

// One call of ScaleMode or ScaleModeFn on random data.
struct ScaleCall {
  std::vector<float> host;
  void* x = nullptr;
  void* y = nullptr;
  OpCall call;

  ScaleCall(const std::string& op, int64_t mode, float alpha, int64_t n) : host(n) {
    std::mt19937 rng(static_cast<unsigned>(n * 31 + mode));
    std::uniform_real_distribution<float> dist(-4, 4);
    for (float& v : host)
      v = dist(rng);
    const size_t bytes = static_cast<size_t>(n) * 4;
    x = *device::Malloc(bytes);
    y = *device::Malloc(bytes);
    EXPECT_TRUE(
        device::Memcpy(x, bytes, host.data(), bytes, device::MemcpyKind::kHostToDevice).ok());
    const TensorDesc desc{DataType::kFloat32, *Shape::Make({n}), Format::kND, {}};
    call.op_type = op;
    call.inputs = {TensorArg{desc, x}};
    call.outputs = {TensorArg{desc, y}};
    call.attrs = {{"mode", mode}, {"alpha", alpha}};
  }
  ~ScaleCall() {
    (void)device::Free(x);
    (void)device::Free(y);
  }
  ScaleCall(const ScaleCall&) = delete;
  ScaleCall& operator=(const ScaleCall&) = delete;

  Result<std::unique_ptr<OpExecutor>> Prepare() {
    uint64_t ws = 0;
    return PrepareOp(call, &ws);
  }

  // Runs the call; returns the output.
  std::vector<float> Run(PlanInfo* info) {
    Result<std::unique_ptr<OpExecutor>> exec = Prepare();
    EXPECT_TRUE(exec.ok()) << exec.status().ToString();
    if (!exec.ok()) return {};
    *info = (*exec)->info();
    EXPECT_TRUE(ExecuteOp(**exec, nullptr, 0, device::Stream()).ok());
    EXPECT_TRUE(device::Stream().Synchronize().ok());
    std::vector<float> out(host.size());
    EXPECT_TRUE(device::Memcpy(out.data(), out.size() * 4, y, out.size() * 4,
                               device::MemcpyKind::kDeviceToHost)
                    .ok());
    return out;
  }
};

// Checks `op` with mode 0 (x * alpha) and 1 (x + alpha) against scalar references, and that each
// ran the binary of its key.
void ExpectBothModes(const std::string& op, const std::string& key0, const std::string& key1) {
  for (int64_t n : {1, 37, 4097}) {
    for (int64_t mode : {0, 1}) {
      const float alpha = 0.75f + static_cast<float>(n % 5);
      ScaleCall c(op, mode, alpha, n);
      PlanInfo info;
      const std::vector<float> out = c.Run(&info);
      ASSERT_EQ(out.size(), c.host.size());
      for (size_t i = 0; i < out.size(); ++i) {
        const float want = mode == 0 ? c.host[i] * alpha : c.host[i] + alpha;
        ASSERT_EQ(out[i], want) << op << " mode " << mode << " n " << n << " i " << i;
      }
      EXPECT_EQ(info.simplified_key, mode == 0 ? key0 : key1);
      EXPECT_EQ(info.tiling_key, static_cast<uint64_t>(mode));
    }
  }
}

const std::string kScaleKey = "ScaleMode/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/mode=";

TEST(KeyModeTest, Mode1PicksTheBinaryOfTheAttributeValue) {
  PackageScope scope(TESSERA_TEST_KEYMODE_DIR);
  ExpectBothModes("ScaleMode", kScaleKey + "0", kScaleKey + "1");
}

TEST(KeyModeTest, Mode2PicksTheBinaryOfTheCallbackFragment) {
  PackageScope scope(TESSERA_TEST_KEYMODE_DIR);
  ExpectBothModes("ScaleModeFn", "ScaleModeFn/d=0,p=0/mul", "ScaleModeFn/d=0,p=0/add");
}

TEST(KeyModeTest, ValueWithoutBinaryListsTheKeysThatExist) {
  PackageScope scope(TESSERA_TEST_KEYMODE_DIR);
  ScaleCall c("ScaleMode", 7, 1.0f, 16);
  const Status st = c.Prepare().status();
  EXPECT_TRUE(Contains(st,
                       "Cannot find kernel file for operator ScaleMode. The corresponding "
                       "simplifiedKey " +
                           kScaleKey + "7 is missing"))
      << st.ToString();
  EXPECT_TRUE(Contains(st, kScaleKey + "0")) << st.ToString();
  EXPECT_TRUE(Contains(st, kScaleKey + "1")) << st.ToString();
  ScaleCall f("ScaleModeFn", 5, 1.0f, 16);
  const Status fst = f.Prepare().status();
  EXPECT_TRUE(Contains(fst, "simplifiedKey ScaleModeFn/d=0,p=0/sub is missing")) << fst.ToString();
  EXPECT_TRUE(Contains(fst, "ScaleModeFn/d=0,p=0/mul")) << fst.ToString();
}

TEST(KeyModeTest, CallbackFailuresAreClearErrors) {
  PackageScope scope(TESSERA_TEST_KEYMODE_DIR);
  ScaleCall failing("ScaleModeFn", 2, 1.0f, 8);
  EXPECT_TRUE(Contains(failing.Prepare().status(),
                       "Failed to generate the simplified key of ScaleModeFn: the "
                       "GenSimplifiedKey callback failed: InvalidArgument: mode 2 has no binary"));
  ScaleCall throwing("ScaleModeFn", 3, 1.0f, 8);
  EXPECT_TRUE(Contains(throwing.Prepare().status(),
                       "the GenSimplifiedKey callback threw: mode 3 is not implemented"));
  ScaleCall full_key("ScaleModeFn", 4, 1.0f, 8);
  EXPECT_TRUE(Contains(full_key.Prepare().status(),
                       "returned a bad simplified key fragment \"ScaleModeFn/d=0,p=0/mul\" of "
                       "ScaleModeFn holds '/'"));
}

Result<PackageManifest> Manifest(const std::string& dir) {
  return ParseManifestFile(fs::path(dir) / kManifestFileName);
}

std::vector<uint64_t> KernelKeys(const ManifestBinary& b) {
  std::vector<uint64_t> keys;
  for (const ManifestKernel& k : b.kernels)
    keys.push_back(k.tiling_key);
  return keys;
}

// Every binary of `op` for one SoC: key -> tiling keys; all SoCs must agree.
std::map<std::string, std::vector<uint64_t>> BinariesOf(const OpManifest& op) {
  std::map<std::string, std::vector<uint64_t>> out;
  for (const ManifestBinary& b : op.binaries) {
    auto [it, inserted] = out.emplace(b.simplified_key, KernelKeys(b));
    EXPECT_EQ(it->second, KernelKeys(b)) << b.soc << " " << b.simplified_key;
  }
  return out;
}

TEST(KeyModeTest, ManifestRecordsModesAndPerKeyEntries) {
  Result<PackageManifest> m = Manifest(TESSERA_TEST_KEYMODE_DIR);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const OpManifest* scale = FindOpInManifest(*m, "ScaleMode");
  const OpManifest* fn = FindOpInManifest(*m, "ScaleModeFn");
  ASSERT_TRUE(scale && fn);
  EXPECT_EQ(scale->simplified_key_mode, 1u);
  EXPECT_EQ(fn->simplified_key_mode, 2u);
  using Keys = std::map<std::string, std::vector<uint64_t>>;
  EXPECT_EQ(BinariesOf(*scale), (Keys{{kScaleKey + "0", {0}}, {kScaleKey + "1", {1}}}));
  EXPECT_EQ(BinariesOf(*fn),
            (Keys{{"ScaleModeFn/d=0,p=0/add", {1}}, {"ScaleModeFn/d=0,p=0/mul", {0}}}));
  for (const ManifestBinary& b : scale->binaries)
    EXPECT_FALSE(b.selective_build.has_value());
}

TEST(KeyModeTest, ManifestModeDifferentFromTheOpDefIsRefused) {
  // A copy of the package whose manifest claims mode 0 for ScaleMode (keys without the attribute).
  char pattern[] = "/tmp/tessera_keymode_XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  fs::copy(TESSERA_TEST_KEYMODE_DIR, dir, fs::copy_options::recursive);
  Result<PackageManifest> m = Manifest(dir.string());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  OpManifest& scale = m->ops[0].op == "ScaleMode" ? m->ops[0] : m->ops[1];
  scale.simplified_key_mode = 0;
  std::erase_if(scale.binaries,
                [](const ManifestBinary& b) { return b.simplified_key.ends_with("/mode=1"); });
  for (ManifestBinary& b : scale.binaries)
    b.simplified_key.resize(b.simplified_key.size() - std::string("/mode=0").size());
  ASSERT_TRUE(WriteManifestFile(dir / kManifestFileName, *m).ok());
  {
    PackageScope scope(dir.string());
    ScaleCall c("ScaleMode", 0, 1.0f, 8);
    const Status st = c.Prepare().status();
    EXPECT_TRUE(Contains(st,
                         "package keymode: the manifest records simplifiedKeyMode 0 for "
                         "ScaleMode, but the loaded op definition uses mode 1; rebuild the "
                         "package"))
        << st.ToString();
  }
  fs::remove_all(dir);
}

// The entries the kernel library of `dir` that runs here actually exports.
std::vector<std::string> LibraryEntries(const std::string& dir) {
  Result<PackageManifest> m = Manifest(dir);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  std::string lib;
  for (const ManifestBinary& b : m->ops[0].binaries) {
    if (SocRunsOn(b.soc, device::CurrentArch().soc)) lib = (fs::path(dir) / b.bin_path).string();
  }
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(handle, nullptr) << lib;
  if (handle == nullptr) return {};
  auto list = reinterpret_cast<KernelEntriesFn>(dlsym(handle, kKernelEntriesSymbol));
  EXPECT_NE(list, nullptr);
  size_t count = 0;
  const KernelEntryInfo* entries = list(&count);
  std::vector<std::string> names;
  for (size_t i = 0; i < count; ++i)
    names.push_back(std::string(entries[i].kernel) + "_" + std::to_string(entries[i].tiling_key));
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SelectiveBuildTest, UnselectedEntriesAreNotInTheLibrary) {
  EXPECT_EQ(LibraryEntries(TESSERA_TEST_KEYMODE_DIR),
            (std::vector<std::string>{"scale_mode_0", "scale_mode_1", "scale_mode_fn_0",
                                      "scale_mode_fn_1"}));
  EXPECT_EQ(LibraryEntries(TESSERA_TEST_KEYMODE_SELECTIVE_DIR),
            (std::vector<std::string>{"scale_mode_0", "scale_mode_fn_0", "scale_mode_fn_1"}));
}

TEST(SelectiveBuildTest, ManifestRecordsTheSelection) {
  Result<PackageManifest> m = Manifest(TESSERA_TEST_KEYMODE_SELECTIVE_DIR);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const OpManifest* scale = FindOpInManifest(*m, "ScaleMode");
  const OpManifest* fn = FindOpInManifest(*m, "ScaleModeFn");
  ASSERT_TRUE(scale && fn);
  using Keys = std::map<std::string, std::vector<uint64_t>>;
  EXPECT_EQ(BinariesOf(*scale), (Keys{{kScaleKey + "0", {0}}, {kScaleKey + "1", {}}}));
  for (const ManifestBinary& b : scale->binaries) {
    ASSERT_TRUE(b.selective_build.has_value());
    EXPECT_EQ(*b.selective_build, (ManifestSelectiveBuild{"TILING_KEYS", "ScaleMode:0"}));
  }
  for (const ManifestBinary& b : fn->binaries)
    EXPECT_FALSE(b.selective_build.has_value());  // the selection does not restrict it
}

TEST(SelectiveBuildTest, BuiltKeyRunsAndUnbuiltKeySaysHowToBuildIt) {
  PackageScope scope(TESSERA_TEST_KEYMODE_SELECTIVE_DIR);
  ScaleCall built("ScaleMode", 0, 2.5f, 129);
  PlanInfo info;
  const std::vector<float> out = built.Run(&info);
  ASSERT_EQ(out.size(), built.host.size());
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], built.host[i] * 2.5f) << i;
  ScaleCall missing("ScaleMode", 1, 2.5f, 129);
  const Status st = missing.Prepare().status();
  EXPECT_TRUE(Contains(st,
                       "tilingKey[1] was not built: this package was built with "
                       "TILING_KEYS=ScaleMode:0 (built tiling keys: none); set TILING_KEYS "
                       "ScaleMode:0,1 in its tessera_add_op_package() or remove TILING_KEYS "
                       "to build every key"))
      << st.ToString();
  // Ops the selection does not name keep every entry.
  ExpectBothModes("ScaleModeFn", "ScaleModeFn/d=0,p=0/mul", "ScaleModeFn/d=0,p=0/add");
}

// Through the C API on the same tensor handles, the compile-time attributes change call after call
// (mode picks the binary, alpha is tiling data): the C API's memo of calls must never run a call
// with another call's values.
TEST(KeyModeTest, CApiCallsWithNewAttributeValuesRunTheirOwnPlans) {
  const int64_t n = 37;
  ScaleCall data("ScaleMode", 0, 1.0f, n);
  tsrTensor* x = tsrCreateTensor(&n, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, data.x);
  tsrTensor* y = tsrCreateTensor(&n, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, data.y);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  const tsrTensor* in[1] = {x};
  const tsrTensor* out[1] = {y};
  std::mt19937 rng(17);
  for (int i = 0; i < 12; ++i) {
    const int64_t mode = i % 3 == 0 ? 1 : 0;  // runs of both modes, each repeated
    const float alpha = i % 4 < 2 ? 1.5f : -2.25f;
    tsrAttr attrs[2] = {};
    attrs[0].name = "mode";
    attrs[0].type = TSR_ATTR_INT;
    attrs[0].intValue = mode;
    attrs[1].name = "alpha";
    attrs[1].type = TSR_ATTR_FLOAT;
    attrs[1].floatValue = alpha;
    if (rng() % 2) std::swap(attrs[0], attrs[1]);  // the order of attributes is free
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    ASSERT_EQ(tsrOpGetWorkspaceSizeInPackage(TESSERA_TEST_KEYMODE_DIR, "ScaleMode", in, 1, out, 1,
                                             attrs, 2, &ws, &exec),
              TSR_SUCCESS)
        << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrOpExecute(nullptr, 0, exec, nullptr), TSR_SUCCESS) << tsrGetLastErrorMessage();
    ASSERT_EQ(tsrSynchronizeStream(nullptr), TSR_SUCCESS);
    std::vector<float> got(static_cast<size_t>(n));
    ASSERT_EQ(
        tsrMemcpy(got.data(), got.size() * 4, data.y, got.size() * 4, TSR_MEMCPY_DEVICE_TO_HOST),
        TSR_SUCCESS);
    for (int64_t k = 0; k < n; ++k) {
      const float want = mode == 0 ? data.host[k] * alpha : data.host[k] + alpha;
      ASSERT_EQ(got[k], want) << "call " << i << " mode " << mode << " alpha " << alpha;
    }
  }
  EXPECT_EQ(tsrDestroyTensor(x), TSR_SUCCESS);
  EXPECT_EQ(tsrDestroyTensor(y), TSR_SUCCESS);
}

}  // namespace
}  // namespace tessera::runtime
