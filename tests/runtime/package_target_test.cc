// Build targets of kernel binaries: ISA levels and compute units (exact CPU models), checked with
// fake device values so every rule is exercised whatever CPU runs the tests.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tessera/device/arch_spec.h"
#include "runtime/package/package_manifest.h"
#include "runtime/package/package_match.h"

namespace tessera::runtime {
namespace {

constexpr std::string_view kF32 = "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND";
constexpr std::string_view kF16 = "Add/d=0,p=0/DT_FLOAT16,ND/DT_FLOAT16,ND/DT_FLOAT16,ND";

ManifestBinary Binary(const std::string& target, std::string_view key) {
  return {target,
          std::string(key),
          "kernels/" + target + "/libadd.so",
          std::string(64, '0'),
          {{0, ManifestKernelType::kAiv, "0:1"}}};
}

OpManifest AddWith(const std::vector<std::string>& targets, std::string_view key = kF32) {
  OpManifest op;
  op.op = "Add";
  op.kernel = "add";
  for (const std::string& t : targets)
    op.binaries.push_back(Binary(t, key));
  return op;
}

TEST(PackageTarget, ComputeUnitsMapToTheirIsaLevel) {
  EXPECT_TRUE(IsKnownComputeUnit("znver3"));
  EXPECT_TRUE(IsKnownComputeUnit("icelake-server"));
  EXPECT_TRUE(IsKnownComputeUnit("neoverse-n1"));
  EXPECT_FALSE(IsKnownComputeUnit("x86-64-v3"));
  EXPECT_FALSE(IsKnownComputeUnit("znver99"));
  EXPECT_TRUE(IsKnownTarget("x86-64-v3"));
  EXPECT_TRUE(IsKnownTarget("znver4"));
  EXPECT_FALSE(IsKnownTarget("pentium9"));
  EXPECT_EQ(SocLevelOf("znver3"), "x86-64-v3");
  EXPECT_EQ(SocLevelOf("znver4"), "x86-64-v4");
  EXPECT_EQ(SocLevelOf("haswell"), "x86-64-v3");
  EXPECT_EQ(SocLevelOf("sandybridge"), "x86-64-v2");
  EXPECT_EQ(SocLevelOf("skylake-avx512"), "x86-64-v4");
  EXPECT_EQ(SocLevelOf("neoverse-n1"), "armv8-a");
  EXPECT_EQ(SocLevelOf("x86-64-v2"), "x86-64-v2");
  EXPECT_EQ(SocLevelOf("riscv"), "");
  // Every model in the table has a level the runtime knows.
  for (const device::CpuModel& m : device::KnownCpuModels()) {
    EXPECT_TRUE(IsKnownSoc(m.soc)) << m.name;
    EXPECT_FALSE(IsKnownSoc(m.name)) << m.name;
  }
}

TEST(PackageTarget, ComputeUnitBinariesRunOnlyOnThatModel) {
  const DeviceTarget znver3{"x86-64-v3", "znver3"};
  const DeviceTarget unknown_model{"x86-64-v4", ""};
  EXPECT_TRUE(BinaryRunsOn("znver3", znver3));
  EXPECT_FALSE(BinaryRunsOn("znver2", znver3));   // older model of the same family: still no
  EXPECT_FALSE(BinaryRunsOn("haswell", znver3));  // same ISA level: no
  EXPECT_FALSE(BinaryRunsOn("znver3", unknown_model));
  EXPECT_TRUE(BinaryRunsOn("x86-64-v3", znver3));
  EXPECT_TRUE(BinaryRunsOn("x86-64-v2", znver3));
  EXPECT_FALSE(BinaryRunsOn("x86-64-v4", znver3));
  EXPECT_EQ(DescribeDevice(znver3), "znver3 (x86-64-v3)");
  EXPECT_EQ(DescribeDevice(unknown_model), "x86-64-v4 (CPU model not identified)");
}

// Binary choice: the device's exact model first, then the best ISA level it runs.
TEST(PackageTarget, SelectsTheExactModelFirstThenTheIsaRule) {
  struct Case {
    std::vector<std::string> built;
    DeviceTarget device;
    std::string expected;  // "" = no binary
  };
  const Case cases[] = {
      {{"x86-64-v2", "znver3", "x86-64-v3"}, {"x86-64-v3", "znver3"}, "znver3"},
      {{"x86-64-v3", "znver3"}, {"x86-64-v3", "znver3"}, "znver3"},  // order is irrelevant
      {{"znver4", "x86-64-v3", "icelake-server"}, {"x86-64-v4", "znver4"}, "znver4"},
      {{"znver4", "x86-64-v2", "x86-64-v3"}, {"x86-64-v3", "znver3"}, "x86-64-v3"},
      {{"icelake-server", "x86-64-v2"}, {"x86-64-v4", "znver4"}, "x86-64-v2"},
      {{"x86-64-v4", "x86-64-v3"}, {"x86-64-v4", ""}, "x86-64-v4"},
      {{"znver3", "x86-64-v2"}, {"x86-64-v3", ""}, "x86-64-v2"},
      {{"icelake-server", "znver4"}, {"x86-64-v3", "znver3"}, ""},
      {{"neoverse-n1", "armv8-a"}, {"armv8-a", "neoverse-n1"}, "neoverse-n1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(DescribeDevice(c.device) + ", built " + std::to_string(c.built.size()));
    const OpManifest op = AddWith(c.built);
    Result<const ManifestBinary*> chosen = SelectBinary(op, c.device, kF32);
    if (c.expected.empty()) {
      ASSERT_FALSE(chosen.ok());
    } else {
      ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
      EXPECT_EQ((*chosen)->soc, c.expected);
    }
  }
}

// The exact-model rule applies per simplified key: a model binary for another key does not
// shadow an ISA-level binary with the wanted key.
TEST(PackageTarget, ModelBinaryMustHaveTheKey) {
  OpManifest op = AddWith({"znver3"}, kF16);
  op.binaries.push_back(Binary("x86-64-v2", kF32));
  Result<const ManifestBinary*> f32 = SelectBinary(op, DeviceTarget{"x86-64-v3", "znver3"}, kF32);
  ASSERT_TRUE(f32.ok()) << f32.status().ToString();
  EXPECT_EQ((*f32)->soc, "x86-64-v2");
  Result<const ManifestBinary*> f16 = SelectBinary(op, DeviceTarget{"x86-64-v3", "znver3"}, kF16);
  ASSERT_TRUE(f16.ok()) << f16.status().ToString();
  EXPECT_EQ((*f16)->soc, "znver3");
  Result<const ManifestBinary*> other = SelectBinary(op, DeviceTarget{"x86-64-v3", "znver2"}, kF16);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(std::string(other.status().message())
                .find("Cannot find kernel file for operator Add. The corresponding simplifiedKey " +
                      std::string(kF16) + " is missing for SoC x86-64-v3"),
            std::string::npos)
      << other.status().ToString();
}

TEST(PackageTarget, NothingRunnableNamesWhatThePackageHasAndWhatTheMachineIs) {
  const OpManifest op = AddWith({"icelake-server", "znver4"});
  Result<const ManifestBinary*> none = SelectBinary(op, DeviceTarget{"x86-64-v3", "znver3"}, kF32);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.status().message(),
            "op Add has binaries for icelake-server, znver4; this machine is znver3 (x86-64-v3), "
            "which runs none of them (a compute-unit binary runs only on that CPU model, an ISA "
            "level on that level or higher); rebuild the package with TESSERA_SOC_SERIES (or "
            "SOCS) including x86-64-v3 or lower, or TESSERA_COMPUTE_UNIT (COMPUTE_UNITS) "
            "including znver3");
  // The same with a machine whose model is not identified.
  Result<const ManifestBinary*> anon = SelectBinary(op, DeviceTarget{"x86-64-v4", ""}, kF32);
  ASSERT_FALSE(anon.ok());
  EXPECT_NE(std::string(anon.status().message())
                .find("this machine is x86-64-v4 (CPU model not identified), which runs none"),
            std::string::npos);
}

TEST(PackageTarget, ManifestAcceptsKnownModelsAndRejectsUnknownOnes) {
  PackageManifest m;
  m.package = "p";
  m.version = "1";
  m.tiling_library = "lib/libp_ops.so";
  m.tiling_library_sha256 = std::string(64, 'a');
  OpManifest op = AddWith({"znver3", "icelake-server", "x86-64-v2"});
  ManifestParam x{"x", ManifestParamMode::kRequired, {DataType::kFloat32}, {Format::kND}};
  op.inputs = {x, x};
  op.inputs[1].name = "x2";
  op.outputs = {x};
  op.outputs[0].name = "y";
  m.ops = {op};
  EXPECT_TRUE(ValidateManifest(m, "m").ok()) << ValidateManifest(m, "m").ToString();
  Result<PackageManifest> parsed = ParseManifestText(ManifestToJson(m), "m");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, m);
  m.ops[0].binaries[1].soc = "icelake-serverr";
  const Status bad = ValidateManifest(m, "m");
  EXPECT_EQ(bad.message(),
            "manifest m: ops[0].binaries[1].soc is \"icelake-serverr\"; expected one of x86-64, "
            "x86-64-v2, x86-64-v3, x86-64-v4, armv8-a, or a compute unit (CPU model) such as "
            "znver3");
}

// Random manifests of ISA-level and model binaries against a direct statement of the rule.
TEST(PackageTarget, RandomBuildsAgreeWithTheRule) {
  const std::vector<std::string> targets = {"x86-64",    "x86-64-v2", "x86-64-v3",
                                            "x86-64-v4", "znver2",    "znver3",
                                            "znver4",    "haswell",   "icelake-server"};
  const std::vector<DeviceTarget> devices = {{"x86-64-v3", "znver3"},
                                             {"x86-64-v4", "znver4"},
                                             {"x86-64-v3", "haswell"},
                                             {"x86-64-v4", ""},
                                             {"x86-64-v2", ""}};
  std::mt19937 rng(17);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> built;
    for (const std::string& t : targets) {
      if (rng() % 3 == 0) built.push_back(t);
    }
    const DeviceTarget& device = devices[rng() % devices.size()];
    std::string expected;
    for (const std::string& t : built) {
      if (t == device.compute_unit) expected = t;
    }
    for (const std::string& t : built) {
      if (!expected.empty() && expected == device.compute_unit) break;
      if (IsKnownSoc(t) && SocRunsOn(t, device.soc) &&
          (expected.empty() || SocRunsOn(expected, t))) {
        expected = t;
      }
    }
    const OpManifest op = AddWith(built);
    Result<const ManifestBinary*> chosen = SelectBinary(op, device, kF32);
    SCOPED_TRACE(DescribeDevice(device) + " round " + std::to_string(round));
    EXPECT_EQ(chosen.ok(), !expected.empty());
    if (chosen.ok()) {
      EXPECT_EQ((*chosen)->soc, expected);
    }
  }
}

}  // namespace
}  // namespace tessera::runtime
