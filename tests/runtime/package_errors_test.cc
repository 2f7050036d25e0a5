// A package that was tampered with or is inconsistent is refused with a message naming the file
// and what was expected: checksum, tiling-struct hash, tiling key, SoC/simplified key, manifest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tessera/device/memory.h"
#include "tessera/runtime/op_runtime.h"
#include "runtime/package/package.h"

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;
const fs::path kCustom = TESSERA_TEST_CUSTOM_PACKAGE_DIR;

// A private copy of the example custom package, put first on the search path.
class TamperedPackage : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessera_tampered_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::copy(kCustom, dir_, fs::copy_options::recursive);
    setenv("TESSERA_CUSTOM_OPP_PATH", dir_.c_str(), 1);
    ClearParamCache();
  }
  void TearDown() override {
    unsetenv("TESSERA_CUSTOM_OPP_PATH");
    ClearParamCache();
    fs::remove_all(dir_);
  }
  nlohmann::json Manifest() {
    std::ifstream in(dir_ / "manifest.json");
    return nlohmann::json::parse(in);
  }
  void WriteManifest(const nlohmann::json& j) {
    std::ofstream(dir_ / "manifest.json") << j.dump(2);
  }
  Status Prepare() {
    void* p = *device::Malloc(64);
    const TensorDesc desc{DataType::kFloat32, *Shape::Make({16}), Format::kND, {}};
    OpCall call;
    call.op_type = "Add";
    call.inputs = {TensorArg{desc, p}, TensorArg{desc, p}};
    call.outputs = {TensorArg{desc, p}};
    uint64_t ws = 0;
    Status st = PrepareOp(call, &ws).status();
    (void)device::Free(p);
    return st;
  }
  fs::path dir_;
};

bool Has(const Status& s, const std::string& needle) {
  return std::string(s.message()).find(needle) != std::string::npos;
}

TEST_F(TamperedPackage, IntactCopyWorks) {
  EXPECT_TRUE(Prepare().ok()) << Prepare().ToString();
}

TEST_F(TamperedPackage, ChecksumMismatchRefusesTheBinary) {
  const nlohmann::json manifest = Manifest();
  const std::string bin = manifest["ops"][0]["binaries"][0]["binPath"];
  for (const auto& b : manifest["ops"][0]["binaries"]) {
    std::ofstream(dir_ / b["binPath"].get<std::string>(), std::ios::app) << "tampered";
  }
  Status st = Prepare();
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(Has(st, "sha256")) << st.ToString();
  EXPECT_TRUE(Has(st, bin.substr(bin.rfind('/') + 1))) << st.ToString();
}

TEST_F(TamperedPackage, TilingStructHashMismatchIsRefused) {
  nlohmann::json j = Manifest();
  j["ops"][0]["tiling_schema_hash"] = "0x0123456789abcdef";
  WriteManifest(j);
  Status st = Prepare();
  EXPECT_TRUE(Has(st, "records tiling struct hash 0x0123456789abcdef for Add")) << st.ToString();
  EXPECT_TRUE(Has(st, "rebuild the package"));
}

TEST_F(TamperedPackage, TilingKeyMissingFromTheBinary) {
  nlohmann::json j = Manifest();
  for (auto& b : j["ops"][0]["binaries"])
    b["kernels"][0]["tilingKey"] = 7;
  WriteManifest(j);
  Status st = Prepare();
  EXPECT_TRUE(Has(st, "Cannot find tilingKey[0]")) << st.ToString();
}

TEST_F(TamperedPackage, NoBinaryForThisSocOrKey) {
  nlohmann::json j = Manifest();
  for (auto& b : j["ops"][0]["binaries"])
    b["simplifiedKey"] = "Add/d=0,p=0/DT_INT8,ND/DT_INT8,ND/DT_INT8,ND";
  WriteManifest(j);
  Status st = Prepare();
  EXPECT_TRUE(Has(st, "Cannot find kernel file for operator Add")) << st.ToString();
  EXPECT_TRUE(Has(st, "DT_FLOAT")) << st.ToString();
}

TEST_F(TamperedPackage, MalformedManifestIsSkippedWithItsReason) {
  std::ofstream(dir_ / "manifest.json") << "{ \"package\": \"x\",\n  oops }";
  // The broken package is skipped (as CANN skips a binary_info_config.json that fails to load);
  // the built-in package then serves Add.
  EXPECT_TRUE(Prepare().ok());
  const PackageSet set = LoadPackages(*ResolvePackageSearch(ProcessEnv(), BuiltinPackageDir()));
  bool reported = false;
  for (const auto& w : set.warnings)
    reported = reported || (w.find("manifest.json") != std::string::npos &&
                            w.find("line 2") != std::string::npos);
  EXPECT_TRUE(reported);
}

}  // namespace
}  // namespace tessera::runtime
