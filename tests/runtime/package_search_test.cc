#include "runtime/package/package_search.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "package_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace tessera::runtime {
namespace {

namespace fs = std::filesystem;

using test_util::TempDir;
using test_util::WriteFile;

// An env getter over a fixed map.
EnvGetter MapEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// Writes a package `name` at `dir` defining `ops` (each with one f32 binary).
void WritePackage(const fs::path& dir, const std::string& name, std::vector<std::string> ops) {
  PackageManifest m;
  m.package = name;
  m.version = "1.0";
  m.tiling_library = "lib/lib" + name + "_tiling.so";
  m.tiling_library_sha256 = std::string(64, 'a');
  for (const std::string& op : ops) {
    OpManifest o;
    o.op = op;
    o.kernel = "k";
    const ManifestParam p{"x", ManifestParamMode::kRequired, {DataType::kFloat32}, {Format::kND}};
    o.inputs = {p};
    o.outputs = {{"y", ManifestParamMode::kRequired, {DataType::kFloat32}, {Format::kND}}};
    o.binaries = {{"x86-64",
                   op + "/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND",
                   "kernels/lib.so",
                   std::string(64, 'a'),
                   {{0, ManifestKernelType::kAiv, "0:1"}}}};
    m.ops.push_back(o);
  }
  fs::create_directories(dir);
  ASSERT_TRUE(WriteManifestFile(dir / kManifestFileName, m).ok());
}

std::string ConfigError(std::string_view text) {
  Result<VendorConfig> c = ParseVendorConfigText(text, "/opp/vendors/config.ini");
  EXPECT_FALSE(c.ok()) << text;
  return c.ok() ? "" : std::string(c.status().message());
}

TEST(VendorConfig, ParsesPriorityWithCommentsAndWhitespace) {
  Result<VendorConfig> c = ParseVendorConfigText(
      "# vendors, high -> low\n\n  load_priority = acme , beta_2,x.y-z  \r\n"
      "   # trailing comment\n",
      "config.ini");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->load_priority, (std::vector<std::string>{"acme", "beta_2", "x.y-z"}));
  Result<VendorConfig> empty = ParseVendorConfigText("load_priority=", "config.ini");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->load_priority.empty());
}

TEST(VendorConfig, ErrorsNameFileAndLine) {
  const std::string f = "/opp/vendors/config.ini:";
  EXPECT_EQ(ConfigError("# c\nload_priority acme\n"),
            f + "2: line \"load_priority acme\" has no '='; expected "
                "load_priority=<vendor>[,<vendor>...]");
  EXPECT_EQ(ConfigError("\n\nload_prority=acme"),
            f + "3: unknown key \"load_prority\"; expected load_priority");
  EXPECT_EQ(ConfigError("load_priority=a\n#x\nload_priority=b"),
            f + "3: load_priority repeats line 1; expected it once");
  EXPECT_EQ(ConfigError("load_priority=a,,b"),
            f + "1: vendor name \"\" is invalid; expected letters, digits, '_', '.' or '-' "
                "separated by commas");
  EXPECT_EQ(ConfigError("load_priority=a,../etc"),
            f + "1: vendor name \"../etc\" is invalid; expected letters, digits, '_', '.' or '-' "
                "separated by commas");
  EXPECT_EQ(ConfigError("load_priority=a, b ,a"),
            f + "1: vendor \"a\" is listed twice; expected each vendor once");
  EXPECT_EQ(ConfigError("# only a comment\n"),
            "/opp/vendors/config.ini: has no load_priority line; expected "
            "load_priority=<vendor>,...");
  Result<VendorConfig> missing = ParseVendorConfigFile("/nonexistent/config.ini");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(),
            "vendor config /nonexistent/config.ini: cannot be opened for reading (No such file or "
            "directory)");
  // Not a regular file: refused without blocking or reading.
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir.path() / "config.ini").c_str(), 0600), 0);
  Result<VendorConfig> fifo = ParseVendorConfigFile(dir.path() / "config.ini");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.status().message().find("is a FIFO; expected a regular file"), std::string::npos);
  Result<VendorConfig> device = ParseVendorConfigFile("/dev/zero");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find("is a character device"), std::string::npos);
}

// Packages laid out once for every search-order combination: custom packages c1, c2; vendors v1,
// v2 (and v3 on disk but never listed); the built-in package. Each defines Add; a few ops exist in
// one package only.
class PackageSearchTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path();
    WritePackage(root_ / "c1", "c1", {"Add", "OnlyC1"});
    WritePackage(root_ / "c2", "c2", {"Add"});
    WriteFile(root_ / "file_entry", "not a directory");
    fs::create_directories(root_ / "empty_dir");
    WritePackage(root_ / "opp/vendors/v1", "v1", {"Add", "OnlyV1"});
    WritePackage(root_ / "opp/vendors/v2", "v2", {"Add"});
    WritePackage(root_ / "opp/vendors/v3", "v3", {"Add"});
    WritePackage(root_ / "builtin", "builtin", {"Add", "Sub"});
  }

  fs::path root_;
  TempDir tmp_;
};

TEST_F(PackageSearchTest, OrderInEveryCombination) {
  // Custom path entries: value of TESSERA_CUSTOM_OPP_PATH (nullopt = unset) and the packages it
  // contributes, in order.
  struct Custom {
    std::optional<std::string> value;
    std::vector<std::string> packages;
  };
  const std::string c1 = (root_ / "c1").string();
  const std::string c2 = (root_ / "c2").string();
  const std::string file = (root_ / "file_entry").string();
  const std::string missing = (root_ / "missing").string();
  const std::string empty_dir = (root_ / "empty_dir").string();
  const std::vector<Custom> customs = {
      {std::nullopt, {}},
      {"", {}},
      {c1, {"c1"}},
      {c1 + ":" + c2, {"c1", "c2"}},
      {c2 + ":" + c1, {"c2", "c1"}},
      {file + ":" + c2, {"c2"}},
      {missing + ":" + c1 + ":" + empty_dir, {"c1"}},
      {c2 + "::" + c2, {"c2"}},  // empty entry and a repeated directory are skipped
  };
  // Vendor configurations: config.ini text (nullopt = TESSERA_OPP_PATH unset) and the packages.
  struct Vendors {
    std::optional<std::string> config;
    std::vector<std::string> packages;
  };
  const std::vector<Vendors> vendors = {
      {std::nullopt, {}},
      {"load_priority=v1,v2\n", {"v1", "v2"}},
      {"# high -> low\nload_priority = v2 , v1\n", {"v2", "v1"}},
      {"load_priority=ghost,v2\n", {"v2"}},
      {"load_priority=\n", {}},
  };
  for (const bool with_builtin : {true, false}) {
    for (const Custom& custom : customs) {
      for (const Vendors& vendor : vendors) {
        std::map<std::string, std::string> env;
        if (custom.value) env[std::string(kCustomOppPathEnv)] = *custom.value;
        if (vendor.config) {
          WriteFile(root_ / "opp/vendors/config.ini", *vendor.config);
          env[std::string(kOppPathEnv)] = (root_ / "opp").string();
        }
        SCOPED_TRACE("custom=" + custom.value.value_or("<unset>") +
                     " config=" + vendor.config.value_or("<unset>") +
                     " builtin=" + std::to_string(with_builtin));
        Result<PackageSearch> search = ResolvePackageSearch(
            MapEnv(env), with_builtin ? root_ / "builtin" : root_ / "no_builtin");
        ASSERT_TRUE(search.ok()) << search.status().ToString();
        const PackageSet set = LoadPackages(*search);

        std::vector<std::string> expected = custom.packages;
        expected.insert(expected.end(), vendor.packages.begin(), vendor.packages.end());
        if (with_builtin) expected.push_back("builtin");
        std::vector<std::string> loaded;
        for (const LoadedPackage& p : set.packages)
          loaded.push_back(p.manifest.package);
        EXPECT_EQ(loaded, expected);

        Result<OpMatch> add = FindOp(set, "Add");
        if (expected.empty()) {
          EXPECT_FALSE(add.ok());
        } else {
          ASSERT_TRUE(add.ok()) << add.status().ToString();
          EXPECT_EQ(add->package->manifest.package, expected.front());
          EXPECT_EQ(add->op->op, "Add");
        }
        Result<OpMatch> sub = FindOp(set, "Sub");
        EXPECT_EQ(sub.ok(), with_builtin);
        if (sub.ok()) {
          EXPECT_EQ(sub->package->candidate.origin, PackageOrigin::kBuiltIn);
        }
      }
    }
  }
}

TEST_F(PackageSearchTest, CandidatesRecordOriginAndSkipReasons) {
  WriteFile(root_ / "opp/vendors/config.ini", "load_priority=v2,ghost,v1\n");
  const std::string custom = (root_ / "file_entry").string() + ":" + (root_ / "missing").string() +
                             ":" + (root_ / "c1").string() + "::" + (root_ / "empty_dir").string() +
                             ":" + (root_ / "c1/../c1").string();
  Result<PackageSearch> search = ResolvePackageSearch(
      MapEnv({{"TESSERA_CUSTOM_OPP_PATH", custom}, {"TESSERA_OPP_PATH", (root_ / "opp").string()}}),
      root_ / "builtin");
  ASSERT_TRUE(search.ok()) << search.status().ToString();
  struct Expected {
    PackageOrigin origin;
    std::string describe;
    std::string reason;  // "" = used
  };
  const std::string c1 = (root_ / "c1").string();
  const std::string vendors = (root_ / "opp/vendors").string();
  const std::vector<Expected> expected = {
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[0] " + (root_ / "file_entry").string(),
       "not a directory"},
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[1] " + (root_ / "missing").string(),
       "does not exist"},
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[2] " + c1, ""},
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[3] <empty>", "empty entry"},
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[4] " + (root_ / "empty_dir").string(),
       "no manifest.json"},
      {PackageOrigin::kCustomPath, "TESSERA_CUSTOM_OPP_PATH[5] " + (root_ / "c1/../c1").string(),
       "same directory as TESSERA_CUSTOM_OPP_PATH[2] " + c1},
      {PackageOrigin::kVendor, "vendor 'v2' " + vendors + "/v2", ""},
      {PackageOrigin::kVendor, "vendor 'ghost' " + vendors + "/ghost",
       "vendor listed in load_priority but missing"},
      {PackageOrigin::kVendor, "vendor 'v1' " + vendors + "/v1", ""},
      {PackageOrigin::kBuiltIn, "built-in " + (root_ / "builtin").string(), ""},
  };
  ASSERT_EQ(search->candidates.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const PackageCandidate& c = search->candidates[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(c.origin, expected[i].origin);
    EXPECT_EQ(c.Describe(), expected[i].describe);
    EXPECT_EQ(c.reason, expected[i].reason);
    EXPECT_EQ(c.used, expected[i].reason.empty());
  }
  EXPECT_EQ(search->candidates[2].custom_index, 2u);
  EXPECT_EQ(search->candidates[6].vendor, "v2");
  // Every skipped candidate warns, and so does a vendor directory missing from load_priority.
  const std::vector<std::string>& w = search->warnings;
  ASSERT_EQ(w.size(), 7u);
  EXPECT_EQ(w[0], "TESSERA_CUSTOM_OPP_PATH[0] " + (root_ / "file_entry").string() +
                      " skipped: not a directory");
  EXPECT_EQ(w[2], "TESSERA_CUSTOM_OPP_PATH[3] <empty> skipped: empty entry");
  EXPECT_EQ(w[6], "vendor directory " + vendors + "/v3 is not listed in load_priority of " +
                      vendors + "/config.ini; not searched");
}

TEST_F(PackageSearchTest, MalformedConfigIniFailsTheSearch) {
  WriteFile(root_ / "opp/vendors/config.ini", "# vendors\nload_priority v1\n");
  Result<PackageSearch> search =
      ResolvePackageSearch(MapEnv({{"TESSERA_OPP_PATH", (root_ / "opp").string()}}), root_);
  ASSERT_FALSE(search.ok());
  EXPECT_EQ(search.status().message(), (root_ / "opp/vendors/config.ini").string() +
                                           ":2: line \"load_priority v1\" has no '='; expected "
                                           "load_priority=<vendor>[,<vendor>...]");
}

TEST_F(PackageSearchTest, MissingConfigIniWarnsAndSearchesNoVendors) {
  TempDir opp;
  Result<PackageSearch> search =
      ResolvePackageSearch(MapEnv({{"TESSERA_OPP_PATH", opp.path().string()}}), root_ / "builtin");
  ASSERT_TRUE(search.ok());
  ASSERT_EQ(search->candidates.size(), 1u);
  EXPECT_EQ(search->candidates[0].origin, PackageOrigin::kBuiltIn);
  ASSERT_EQ(search->warnings.size(), 1u);
  EXPECT_EQ(search->warnings[0], "TESSERA_OPP_PATH=" + opp.path().string() + " has no " +
                                     (opp.path() / "vendors/config.ini").string() +
                                     "; no vendor packages searched");
}

TEST_F(PackageSearchTest, RejectedManifestIsSkippedWithItsError) {
  WriteFile(root_ / "c1" / kManifestFileName, "{\"package\": ");
  Result<PackageSearch> search = ResolvePackageSearch(
      MapEnv({{"TESSERA_CUSTOM_OPP_PATH", (root_ / "c1").string()}}), root_ / "builtin");
  ASSERT_TRUE(search.ok());
  EXPECT_TRUE(search->candidates[0].used);  // before loading it looks like a package
  const PackageSet set = LoadPackages(*search);
  ASSERT_EQ(set.packages.size(), 1u);
  EXPECT_EQ(set.packages[0].manifest.package, "builtin");
  EXPECT_FALSE(set.searched[0].used);
  EXPECT_EQ(set.searched[0].reason.rfind("manifest rejected: manifest " +
                                             (root_ / "c1/manifest.json").string() +
                                             ": malformed JSON at line 1, column ",
                                         0),
            0u)
      << set.searched[0].reason;
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_EQ(set.warnings[0], "TESSERA_CUSTOM_OPP_PATH[0] " + (root_ / "c1").string() +
                                 " skipped: " + set.searched[0].reason);
  Result<OpMatch> add = FindOp(set, "Add");
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->package->manifest.package, "builtin");
}

TEST_F(PackageSearchTest, OpInNoPackageListsEverythingSearched) {
  WriteFile(root_ / "opp/vendors/config.ini", "load_priority=ghost,v1\n");
  Result<PackageSearch> search =
      ResolvePackageSearch(MapEnv({{"TESSERA_CUSTOM_OPP_PATH", (root_ / "file_entry").string() +
                                                                   ":" + (root_ / "c2").string()},
                                   {"TESSERA_OPP_PATH", (root_ / "opp").string()}}),
                           root_ / "builtin");
  ASSERT_TRUE(search.ok());
  const PackageSet set = LoadPackages(*search);
  Result<OpMatch> op = FindOp(set, "add");
  ASSERT_FALSE(op.ok());
  EXPECT_EQ(op.status().code(), StatusCode::kNotFound);
  const std::string vendors = (root_ / "opp/vendors").string();
  EXPECT_EQ(op.status().message(),
            "Operator add was not found in any operator package. Searched, in priority order:\n"
            "  1. TESSERA_CUSTOM_OPP_PATH[0] " +
                (root_ / "file_entry").string() +
                ": skipped, not a directory\n"
                "  2. TESSERA_CUSTOM_OPP_PATH[1] " +
                (root_ / "c2").string() +
                ": package 'c2' 1.0 defines Add, not add\n"
                "  3. vendor 'ghost' " +
                vendors +
                "/ghost: skipped, vendor listed in load_priority but missing\n"
                "  4. vendor 'v1' " +
                vendors +
                "/v1: package 'v1' 1.0 defines Add, OnlyV1, not add\n"
                "  5. built-in " +
                (root_ / "builtin").string() +
                ": package 'builtin' 1.0 defines Add, Sub, not add\n"
                "Possible causes: the package that defines add is not installed, or its directory "
                "is not on TESSERA_CUSTOM_OPP_PATH nor listed in load_priority of "
                "$TESSERA_OPP_PATH/vendors/config.ini; its manifest.json failed to load (see the "
                "skipped entries); the op type is misspelled (op types are CamelCase, e.g. "
                "\"Add\"). Did you mean \"Add\"?");
  Result<OpMatch> v1 = FindOp(set, "OnlyV1");
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(v1->package->candidate.vendor, "v1");
}

TEST_F(PackageSearchTest, ProcessEnvIsReadAtEachCall) {
  const EnvGetter env = ProcessEnv();
  ASSERT_EQ(setenv("TESSERA_CUSTOM_OPP_PATH", (root_ / "c1").string().c_str(), 1), 0);
  Result<PackageSearch> first = ResolvePackageSearch(env, root_ / "builtin");
  ASSERT_EQ(setenv("TESSERA_CUSTOM_OPP_PATH", (root_ / "c2").string().c_str(), 1), 0);
  Result<PackageSearch> second = ResolvePackageSearch(env, root_ / "builtin");
  ASSERT_EQ(unsetenv("TESSERA_CUSTOM_OPP_PATH"), 0);
  Result<PackageSearch> third = ResolvePackageSearch(env, root_ / "builtin");
  ASSERT_TRUE(first.ok() && second.ok() && third.ok());
  const std::vector<std::string> expected = {"c1", "c2", "builtin"};
  const Result<PackageSearch>* searches[] = {&first, &second, &third};
  for (size_t i = 0; i < expected.size(); ++i) {
    const PackageSet set = LoadPackages(searches[i]->value());
    Result<OpMatch> add = FindOp(set, "Add");
    ASSERT_TRUE(add.ok());
    EXPECT_EQ(add->package->manifest.package, expected[i]);
  }
}

}  // namespace
}  // namespace tessera::runtime
