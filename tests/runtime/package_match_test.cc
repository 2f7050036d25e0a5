#include "runtime/package/package_match.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tessera/device/arch_spec.h"

namespace tessera::runtime {
namespace {

constexpr std::string_view kSha =
    "0000000000000000000000000000000000000000000000000000000000000000";
constexpr std::string_view kF32 = "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND";
constexpr std::string_view kF16 = "Add/d=0,p=0/DT_FLOAT16,ND/DT_FLOAT16,ND/DT_FLOAT16,ND";

ManifestBinary Binary(std::string soc, std::string_view key) {
  return {soc,
          std::string(key),
          "kernels/" + soc + "/libadd.so",
          std::string(kSha),
          {{0, ManifestKernelType::kAiv, "0:1"}, {7, ManifestKernelType::kAiv, "0:1"}}};
}

OpManifest AddWith(std::vector<ManifestBinary> binaries) {
  OpManifest op;
  op.op = "Add";
  op.kernel = "add";
  op.binaries = std::move(binaries);
  return op;
}

TEST(PackageMatch, SocFamiliesAndLevels) {
  EXPECT_EQ(
      std::vector<std::string_view>(KnownSocs().begin(), KnownSocs().end()),
      (std::vector<std::string_view>{"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "armv8-a"}));
  EXPECT_TRUE(SocRunsOn("x86-64-v2", "x86-64-v4"));
  EXPECT_TRUE(SocRunsOn("x86-64-v4", "x86-64-v4"));
  EXPECT_FALSE(SocRunsOn("x86-64-v4", "x86-64-v3"));
  EXPECT_FALSE(SocRunsOn("x86-64", "armv8-a"));
  EXPECT_FALSE(SocRunsOn("armv8-a", "x86-64-v4"));
  EXPECT_TRUE(SocRunsOn("armv8-a", "armv8-a"));
  EXPECT_FALSE(SocRunsOn("riscv", "riscv"));
  EXPECT_EQ(CompatibleSocs("x86-64-v3"),
            (std::vector<std::string_view>{"x86-64-v3", "x86-64-v2", "x86-64"}));
  EXPECT_EQ(CompatibleSocs("armv8-a"), (std::vector<std::string_view>{"armv8-a"}));
  EXPECT_TRUE(CompatibleSocs("sparc").empty());
  EXPECT_TRUE(IsKnownSoc(device::DetectSoc())) << "this machine's SoC " << device::DetectSoc();
}

// Which binary a device picks from packages built for different SoC lists.
TEST(PackageMatch, SelectsExactElseBestLowerLevelOfTheSameFamily) {
  struct Case {
    std::vector<std::string> built;
    std::string device;
    std::string expected;  // "" = no binary
  };
  const Case cases[] = {
      {{"x86-64-v2", "x86-64-v3", "x86-64-v4"}, "x86-64-v4", "x86-64-v4"},
      {{"x86-64-v2", "x86-64-v3"}, "x86-64-v4", "x86-64-v3"},
      {{"x86-64-v3", "x86-64-v2"},
       "x86-64-v4",
       "x86-64-v3"},  // order in the manifest is irrelevant
      {{"x86-64-v2", "x86-64"}, "x86-64-v4", "x86-64-v2"},
      {{"x86-64-v4", "x86-64-v2"}, "x86-64-v3", "x86-64-v2"},
      {{"x86-64-v4"}, "x86-64-v3", ""},
      {{"x86-64", "armv8-a"}, "x86-64", "x86-64"},
      {{"x86-64-v2", "x86-64-v3", "x86-64-v4", "x86-64"}, "armv8-a", ""},
      {{"x86-64-v2", "armv8-a"}, "armv8-a", "armv8-a"},
      {{"armv8-a"}, "x86-64-v4", ""},
  };
  for (const Case& c : cases) {
    std::vector<ManifestBinary> binaries;
    for (const std::string& soc : c.built)
      binaries.push_back(Binary(soc, kF32));
    const OpManifest op = AddWith(binaries);
    SCOPED_TRACE(c.device + " built " + std::to_string(c.built.size()));
    Result<const ManifestBinary*> chosen = SelectBinary(op, c.device, kF32);
    if (c.expected.empty()) {
      ASSERT_FALSE(chosen.ok());
      EXPECT_EQ(chosen.status().code(), StatusCode::kNotFound);
    } else {
      ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
      EXPECT_EQ((*chosen)->soc, c.expected);
    }
  }
}

TEST(PackageMatch, SimplifiedKeyMustMatchExactly) {
  const OpManifest op = AddWith({Binary("x86-64-v4", kF16), Binary("x86-64-v2", kF32)});
  Result<const ManifestBinary*> f32 = SelectBinary(op, "x86-64-v4", kF32);
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(*f32, &op.binaries[1]);  // the lower level, because only it has the key
  Result<const ManifestBinary*> f16 = SelectBinary(op, "x86-64-v4", kF16);
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(*f16, &op.binaries[0]);
}

TEST(PackageMatch, NoBinaryErrorNamesKeyAndExistingBinaries) {
  const OpManifest op = AddWith({Binary("x86-64-v4", kF16), Binary("x86-64-v2", kF32)});
  Result<const ManifestBinary*> missing = SelectBinary(op, "x86-64-v3", kF16);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "Cannot find kernel file for operator Add. The corresponding simplifiedKey " +
                std::string(kF16) +
                " is missing for SoC x86-64-v3 (compatible: x86-64-v3, x86-64-v2, x86-64); that "
                "key exists only for SoCs that cannot run on x86-64-v3: x86-64-v4; binaries exist "
                "for: x86-64-v4 " +
                std::string(kF16) + ", x86-64-v2 " + std::string(kF32));

  const std::string bf16 = "Add/d=0,p=0/DT_BF16,ND/DT_BF16,ND/DT_BF16,ND";
  Result<const ManifestBinary*> key = SelectBinary(op, "armv8-a", bf16);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().message(),
            "op Add has binaries for x86-64-v4, x86-64-v2; this machine is armv8-a (CPU model not "
            "identified), which runs none of them (a compute-unit binary runs only on that CPU "
            "model, an ISA level on that level or higher); rebuild the package with "
            "TESSERA_SOC_SERIES (or SOCS) including armv8-a or lower");

  Result<const ManifestBinary*> unknown = SelectBinary(op, "riscv64", kF32);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "device SoC \"riscv64\" is unknown; expected one of x86-64, x86-64-v2, x86-64-v3, "
            "x86-64-v4, armv8-a");
}

TEST(PackageMatch, FindKernelEntryByTilingKey) {
  const ManifestBinary binary = Binary("x86-64-v3", kF32);
  Result<const ManifestKernel*> seven = FindKernelEntry(binary, 7);
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(*seven, &binary.kernels[1]);
  Result<const ManifestKernel*> missing = FindKernelEntry(binary, 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "Cannot find tilingKey[3] in kernel json of kernels/x86-64-v3/libadd.so (" +
                std::string(kF32) + ", SoC x86-64-v3); available tiling keys: 0, 7");
}

TEST(PackageMatch, BuildsSimplifiedKeys) {
  const SimplifiedKeyTensor f32{DataType::kFloat32, Format::kND};
  const SimplifiedKeyTensor f16{DataType::kFloat16, Format::kND};
  const SimplifiedKeyTensor bf16{DataType::kBfloat16, Format::kND};
  const SimplifiedKeyTensor i32{DataType::kInt32, Format::kND};
  const std::vector<SimplifiedKeyTensor> in = {f32, f32};
  const std::vector<SimplifiedKeyTensor> out = {f32};
  EXPECT_EQ(BuildSimplifiedKey("Add", false, 0, in, out), kF32);
  const std::vector<SimplifiedKeyTensor> cast_in = {f16};
  const std::vector<SimplifiedKeyTensor> cast_out = {bf16};
  EXPECT_EQ(BuildSimplifiedKey("Cast", true, 1, cast_in, cast_out),
            "Cast/d=1,p=1/DT_FLOAT16,ND/DT_BF16,ND");
  const std::vector<SimplifiedKeyTensor> none;
  const std::vector<SimplifiedKeyTensor> idx = {i32};
  EXPECT_EQ(BuildSimplifiedKey("Range", false, 0, none, idx), "Range/d=0,p=0/DT_INT32,ND");
  EXPECT_TRUE(
      CheckSimplifiedKey(BuildSimplifiedKey("Cast", true, 1, cast_in, cast_out), "Cast").ok());
}

TEST(PackageMatch, ChecksSimplifiedKeyShape) {
  EXPECT_TRUE(CheckSimplifiedKey(kF32, "Add").ok());
  const auto message = [](std::string_view key, std::string_view op) {
    return std::string(CheckSimplifiedKey(key, op).message());
  };
  EXPECT_EQ(message("Add/d=0,p=0/DT_FLOAT,ND", "Sub"),
            "simplified key \"Add/d=0,p=0/DT_FLOAT,ND\" starts with \"Add\"; expected \"Sub/\"");
  EXPECT_EQ(message("Add/d=2,p=0/DT_FLOAT,ND", "Add"),
            "simplified key \"Add/d=2,p=0/DT_FLOAT,ND\" has flags \"d=2,p=0\"; expected "
            "\"d=<0|1>,p=<precision mode>\" after the op type");
  EXPECT_EQ(message("Add/d=0,p=", "Add"),
            "simplified key \"Add/d=0,p=\" has flags \"d=0,p=\"; expected \"d=<0|1>,p=<precision "
            "mode>\" after the op type");
  EXPECT_EQ(message("Add/d=0,p=0", "Add"),
            "simplified key \"Add/d=0,p=0\" lists no tensors; expected \"/<DT_xxx>,<format>\" per "
            "input and output");
  const std::string bad_tensor = message("Add/d=0,p=0/float32,ND", "Add");
  EXPECT_EQ(bad_tensor.rfind("simplified key \"Add/d=0,p=0/float32,ND\" has tensor \"float32,ND\"; "
                             "expected \"<dtype>,<format>\" with dtype one of DT_FLOAT, ",
                             0),
            0u)
      << bad_tensor;
  EXPECT_FALSE(CheckSimplifiedKey("Add/d=0,p=0/DT_FLOAT,NCHW", "Add").ok());
  EXPECT_FALSE(CheckSimplifiedKey("Add/d=0,p=0/DT_FLOAT", "Add").ok());
  EXPECT_FALSE(CheckSimplifiedKey("Add/d=0,p=0/DT_FLOAT,ND,ND", "Add").ok());
  EXPECT_FALSE(CheckSimplifiedKey("Add/d=0,p=0/DT_FLOAT,nd", "Add").ok());
}

}  // namespace
}  // namespace tessera::runtime
