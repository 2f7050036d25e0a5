// The registry of packages linked into the application, and how the search uses it. Packages are
// registered here by hand at static initialisation, as the registrars of a linked package do.
#include "tessera/runtime/linked_package.h"

#include <gtest/gtest.h>

#include <string>

#include "tessera/kernel/kernel_entry.h"
#include "runtime/package/package_search.h"

namespace tessera::runtime {
namespace {

const OpFactory* NoOps(size_t* count) {
  *count = 0;
  return nullptr;
}
const OpFactory* OtherOps(size_t* count) {
  *count = 0;
  return nullptr;
}
const KernelEntryInfo* NoEntries(size_t* count) {
  *count = 0;
  return nullptr;
}

// A manifest of package `name` whose op Add has binaries for x86-64-v3 and x86-64-v2.
std::string ManifestText(const std::string& name) {
  PackageManifest m;
  m.package = name;
  m.version = "1";
  m.tiling_library = "lib/lib" + name + "_ops.so";
  m.tiling_library_sha256 = std::string(64, 'a');
  OpManifest op;
  op.op = "Add";
  op.kernel = "add";
  const ManifestParam x{"x", ManifestParamMode::kRequired, {DataType::kFloat32}, {Format::kND}};
  op.inputs = {x, x};
  op.inputs[1].name = "x2";
  op.outputs = {x};
  op.outputs[0].name = "y";
  for (const char* soc : {"x86-64-v3", "x86-64-v2"}) {
    op.binaries.push_back({soc,
                           "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND",
                           std::string("kernels/") + soc + "/lib.so",
                           std::string(64, 'a'),
                           {{0, ManifestKernelType::kAiv, "0:1"}}});
  }
  m.ops = {op};
  return ManifestToJson(m);
}

const std::string& AlphaManifest() {
  static const std::string text = ManifestText("alpha");
  return text;
}
const std::string& GammaManifest() {
  static const std::string text = ManifestText("not_gamma");
  return text;
}

// Registration order: beta's kernels first, then alpha (complete; its op library registered twice
// with different lists), then gamma (its manifest is another package's).
const bool registered = [] {
  RegisterLinkedKernelLibrary("beta", &NoEntries);
  RegisterLinkedManifest("alpha", "x86-64-v2", AlphaManifest().c_str(), &registered);
  RegisterLinkedOpLibrary("alpha", &NoOps);
  RegisterLinkedKernelLibrary("alpha", &NoEntries);
  RegisterLinkedOpLibrary("alpha", &OtherOps);
  RegisterLinkedOpLibrary("gamma", &NoOps);
  RegisterLinkedKernelLibrary("gamma", &NoEntries);
  RegisterLinkedManifest("gamma", "x86-64-v2", GammaManifest().c_str(), &registered);
  return true;
}();

TEST(LinkedPackageRegistry, KeepsRegistrationOrderAndTheFirstRegistration) {
  const LinkedPackages linked = ListLinkedPackages();
  ASSERT_EQ(linked.packages.size(), 3u);
  EXPECT_EQ(linked.packages[0].name, "beta");
  EXPECT_EQ(linked.packages[1].name, "alpha");
  EXPECT_EQ(linked.packages[2].name, "gamma");
  const LinkedPackage& alpha = linked.packages[1];
  EXPECT_EQ(alpha.ops, &NoOps);
  EXPECT_EQ(alpha.kernels, &NoEntries);
  EXPECT_EQ(alpha.soc, "x86-64-v2");
  EXPECT_EQ(alpha.manifest_json, AlphaManifest());
  EXPECT_EQ(alpha.Problem(), "");
  // The anchor lies in this test program.
  EXPECT_NE(alpha.library.find("tessera_linked_package_tests"), std::string::npos) << alpha.library;
  ASSERT_EQ(linked.warnings.size(), 1u);
  EXPECT_EQ(linked.warnings[0],
            "linked package 'alpha' registered its op library twice (is it linked both as a "
            "shared and a static library?); the first registration is used");
}

TEST(LinkedPackageRegistry, IncompletePackagesSayWhatIsMissing) {
  const LinkedPackage beta = ListLinkedPackages().packages[0];
  EXPECT_EQ(beta.Problem(),
            "incomplete linked package, never registered: op library (TESSERA_OP_LIBRARY()), "
            "manifest; link the package's <name>_linked or <name>_linked_whole target");
  LinkedPackage empty;
  EXPECT_NE(empty.Problem().find("op library (TESSERA_OP_LIBRARY()), kernel library "
                                 "(TESSERA_KERNEL_LIBRARY()), manifest"),
            std::string::npos);
}

TEST(LinkedPackageRegistry, LinkedPackagesComeFirstInTheSearch) {
  const EnvGetter no_env = [](std::string_view) { return std::nullopt; };
  Result<PackageSearch> search = ResolvePackageSearchWithLinked(no_env, "/nonexistent/builtin");
  ASSERT_TRUE(search.ok()) << search.status().ToString();
  ASSERT_EQ(search->candidates.size(), 4u);
  const PackageCandidate& beta = search->candidates[0];
  EXPECT_EQ(beta.origin, PackageOrigin::kLinked);
  EXPECT_FALSE(beta.used);
  EXPECT_NE(beta.reason.find("incomplete linked package"), std::string::npos);
  EXPECT_EQ(beta.Describe(), "linked into the application: beta (" + beta.dir.string() + ")");
  EXPECT_TRUE(search->candidates[1].used);
  EXPECT_EQ(search->candidates[1].linked, "alpha");
  EXPECT_EQ(search->candidates[2].linked, "gamma");
  EXPECT_EQ(search->candidates[3].origin, PackageOrigin::kBuiltIn);
  // Warnings: the repeated registration, the incomplete package, the missing built-in directory.
  ASSERT_EQ(search->warnings.size(), 3u);
  EXPECT_NE(search->warnings[0].find("registered its op library twice"), std::string::npos);
  EXPECT_EQ(search->warnings[1], beta.Describe() + " skipped: " + beta.reason);

  // The same search without linked packages is unchanged.
  Result<PackageSearch> plain = ResolvePackageSearch(no_env, "/nonexistent/builtin");
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->candidates.size(), 1u);
  EXPECT_EQ(plain->candidates[0].origin, PackageOrigin::kBuiltIn);
}

TEST(LinkedPackageRegistry, LoadingKeepsOnlyTheLinkedTargetAndChecksTheName) {
  const EnvGetter no_env = [](std::string_view) { return std::nullopt; };
  const PackageSet set = LoadPackages(*ResolvePackageSearchWithLinked(no_env, "/nonexistent"));
  ASSERT_EQ(set.packages.size(), 1u);
  const LoadedPackage& alpha = set.packages[0];
  EXPECT_EQ(alpha.manifest.package, "alpha");
  ASSERT_EQ(alpha.manifest.ops.size(), 1u);
  ASSERT_EQ(alpha.manifest.ops[0].binaries.size(), 1u);
  EXPECT_EQ(alpha.manifest.ops[0].binaries[0].soc, "x86-64-v2");
  const PackageCandidate& gamma = set.searched[2];
  EXPECT_FALSE(gamma.used);
  EXPECT_EQ(gamma.reason,
            "manifest rejected: linked package gamma embeds the manifest of package not_gamma; "
            "rebuild it");
  Result<OpMatch> add = FindOp(set, "Add");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->package->candidate.linked, "alpha");
  Result<OpMatch> mul = FindOp(set, "Mul");
  ASSERT_FALSE(mul.ok());
  EXPECT_NE(std::string(mul.status().message()).find("1. linked into the application: beta ("),
            std::string::npos)
      << mul.status().ToString();
}

}  // namespace
}  // namespace tessera::runtime
