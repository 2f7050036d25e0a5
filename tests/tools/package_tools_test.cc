// `tessera packages --explain` and `tessera verify` (and runtime::VerifyPackage underneath): the
// explanation of how an op and a call resolve, including why a user's package was not chosen, and
// the package checks, each broken on purpose in a copy of the built-in package.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli_runner.h"
#include "runtime/package/package_match.h"
#include "tessera/device/device.h"
#include "verify/package_verify.h"

namespace {

namespace fs = std::filesystem;
using tessera::cli_test::CliResult;
using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;
using tessera::runtime::FindingSeverity;
using tessera::runtime::PackageFinding;
using tessera::runtime::PackageReport;

// A fresh directory under the test temp dir, removed at the end of the test.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(fs::path(::testing::TempDir()) /
              ("tessera_pkgtools_" + name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

nlohmann::json ReadJson(const fs::path& file) {
  nlohmann::json j;
  std::ifstream(file) >> j;
  return j;
}

void WriteText(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// ---------------------------------------------------------------------------------------------
// packages --explain

const nlohmann::json* FindByDescribe(const nlohmann::json& list, const fs::path& dir) {
  for (const auto& c : list) {
    if (c["describe"].get<std::string>().find(dir.string()) != std::string::npos) return &c;
  }
  return nullptr;
}

TEST(ExplainTest, BuiltinOpWithCallResolvesToWhatTheRuntimeRuns) {
  std::mt19937 rng(std::random_device{}());
  const int rows = 1 + static_cast<int>(rng() % 300), cols = 1 + static_cast<int>(rng() % 300);
  const char* dtypes[] = {"float32", "float16", "bfloat16"};
  const std::string dtype = dtypes[rng() % 3];
  const std::string call = "--shape " + std::to_string(rows) + "," + std::to_string(cols) +
                           " --shape " + std::to_string(cols) + " --dtype " + dtype;
  SCOPED_TRACE(call);
  const nlohmann::json j = RunJson("packages --explain Mul " + call);
  EXPECT_EQ(j["op"], "Mul");
  ASSERT_EQ(j["search"].size(), 1u);
  EXPECT_EQ(j["search"][0]["origin"], "built-in");
  EXPECT_EQ(j["search"][0]["defines_op"], true);
  EXPECT_EQ(j["winner"]["package"], "builtin");
  EXPECT_TRUE(j["not_chosen"].empty());
  EXPECT_TRUE(j["shadowed"].empty());
  EXPECT_TRUE(j["error"].is_null());
  const nlohmann::json& c = j["call"];
  ASSERT_EQ(c["ok"], true) << c.dump(2);

  // The same call through `tessera tiling`, an independent path to the runtime's plan.
  const nlohmann::json t = RunJson("tiling Mul " + call);
  EXPECT_EQ(c["package"], t["package"]);
  EXPECT_EQ(c["package_dir"], t["package_dir"]);
  EXPECT_EQ(c["soc"], t["soc"]);
  EXPECT_EQ(c["simplified_key"], t["simplified_key"]);
  EXPECT_EQ(c["binary"], t["binary"]);
  EXPECT_EQ(c["tiling_key"], t["tiling_key"]);
  EXPECT_EQ(c["block_dim"], t["block_dim"]);
  EXPECT_EQ(c["workspace"], t["workspace"]);
  EXPECT_EQ(c["entry"], "mul_" + std::to_string(t["tiling_key"].get<uint64_t>()));
  EXPECT_TRUE(fs::is_regular_file(c["binary_path"].get<std::string>()));
  EXPECT_EQ(c["inputs"][1], dtype + "[" + std::to_string(cols) + "] ND");

  // Exactly one binary is marked chosen, and it is the one the call resolved to.
  int chosen = 0;
  for (const auto& b : j["binaries"]) {
    if (b["chosen"] == true) {
      ++chosen;
      EXPECT_EQ(b["soc"], c["soc"]);
      EXPECT_EQ(b["simplified_key"], c["simplified_key"]);
      EXPECT_EQ(b["runs_here"], true);
    }
  }
  EXPECT_EQ(chosen, 1);

  const CliResult text = RunCli("packages --explain Mul " + call);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Mul resolves to package builtin"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("kernel entry    " + c["entry"].get<std::string>()), std::string::npos)
      << text.out;
}

// The user's package directories on TESSERA_CUSTOM_OPP_PATH, each unusable for Mul in its own way.
struct UserDirs {
  ScratchDir scratch{"explain"};
  fs::path file = scratch.path() / "not_a_dir";
  fs::path empty = scratch.path() / "empty";
  fs::path broken = scratch.path() / "broken";
  fs::path custom = TESSERA_CLI_CUSTOM_DIR;

  UserDirs() {
    WriteText(file, "not a package\n");
    fs::create_directories(empty);
    fs::create_directories(broken);
    WriteText(broken / "manifest.json", "{\"package\": \"broken\",\n  \"version\": }\n");
  }
  std::string Env() const {
    return "TESSERA_CUSTOM_OPP_PATH=" + file.string() + ":" + empty.string() + ":" +
           broken.string() + ":" + custom.string();
  }
};

TEST(ExplainTest, FallbackToBuiltinNamesEachUserDirAndWhyItWasNotChosen) {
  const UserDirs dirs;
  const std::string call = "--shape 33,7 --shape 33,7 --dtype float32";
  const nlohmann::json j = RunJson("packages --explain Mul " + call, dirs.Env());
  EXPECT_EQ(j["winner"]["package"], "builtin");
  EXPECT_EQ(j["call"]["ok"], true);
  EXPECT_EQ(j["call"]["package"], "builtin");
  ASSERT_EQ(j["not_chosen"].size(), 4u) << j["not_chosen"].dump(2);
  const struct {
    fs::path dir;
    const char* reason;
  } expected[] = {{dirs.file, "not a directory"},
                  {dirs.empty, "no manifest.json"},
                  {dirs.broken, "manifest rejected: "},
                  {dirs.custom, "does not define Mul (it defines Add)"}};
  for (const auto& e : expected) {
    const nlohmann::json* c = FindByDescribe(j["not_chosen"], e.dir);
    ASSERT_NE(c, nullptr) << e.dir;
    EXPECT_NE((*c)["reason"].get<std::string>().find(e.reason), std::string::npos)
        << (*c)["reason"];
  }
  // The rejected manifest's parse error carries its position.
  EXPECT_NE(
      (*FindByDescribe(j["not_chosen"], dirs.broken))["reason"].get<std::string>().find("line 2"),
      std::string::npos);
  EXPECT_EQ((*FindByDescribe(j["search"], dirs.custom))["package"], "custom_add");

  const CliResult text = RunCli("packages --explain Mul " + call, dirs.Env());
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("searched before it, not chosen:"), std::string::npos) << text.out;
  for (const auto& e : expected) {
    const size_t at = text.out.find(e.dir.string() + ": ");
    ASSERT_NE(at, std::string::npos) << e.dir << "\n" << text.out;
    const std::string line = text.out.substr(at, text.out.find('\n', at) - at);
    EXPECT_NE(line.find(e.reason), std::string::npos) << line;
  }
}

TEST(ExplainTest, CustomPackageWinsAndACallItCannotRunSaysLowerPackagesAreNotTried) {
  const UserDirs dirs;
  const nlohmann::json ok =
      RunJson("packages --explain Add --shape 100 --shape 100 --dtype float32", dirs.Env());
  EXPECT_EQ(ok["winner"]["package"], "custom_add");
  EXPECT_EQ(ok["call"]["package"], "custom_add");
  EXPECT_EQ(ok["call"]["entry"], "add_0");
  EXPECT_GT(ok["call"]["workspace"].get<uint64_t>(), 0u);  // the example asks for a workspace
  ASSERT_EQ(ok["shadowed"].size(), 1u);
  EXPECT_EQ(ok["shadowed"][0]["package"], "builtin");
  const nlohmann::json* builtin = FindByDescribe(ok["search"], TESSERA_CLI_BUILTIN_DIR);
  ASSERT_NE(builtin, nullptr);
  EXPECT_NE((*builtin)["role"].get<std::string>().find("shadowed by custom_add"),
            std::string::npos);

  // float16 is not among custom_add's combinations: the call fails, and the built-in Add that
  // could run it is not tried.
  const nlohmann::json bad =
      RunJson("packages --explain Add --shape 100 --shape 100 --dtype float16", dirs.Env(), 1);
  EXPECT_EQ(bad["call"]["ok"], false);
  EXPECT_NE(bad["call"]["error"].get<std::string>().find("inconsistent with the prototype"),
            std::string::npos);
  EXPECT_NE(bad["call"]["note"].get<std::string>().find("(builtin) are not tried"),
            std::string::npos);
  EXPECT_FALSE(bad["binaries"].empty());  // custom_add's binaries: what it can run
  for (const auto& b : bad["binaries"]) {
    EXPECT_NE(b["simplified_key"].get<std::string>().find("DT_FLOAT,"), std::string::npos);
  }
  const CliResult text =
      RunCli("packages --explain Add --shape 100 --shape 100 --dtype float16", dirs.Env());
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("  fails: "), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("--explain Add"), std::string::npos) << text.err;
}

TEST(ExplainTest, WithoutCallListsTheWinningPackagesBinaries) {
  const nlohmann::json j = RunJson("packages --explain Cast");
  EXPECT_FALSE(j.contains("call"));
  ASSERT_FALSE(j["binaries"].empty());
  const tessera::device::ArchSpec& arch = tessera::device::CurrentArch();
  bool runs_here = false;
  for (const auto& b : j["binaries"]) {
    EXPECT_EQ(b["simplified_key"].get<std::string>().rfind("Cast/", 0), 0u);
    EXPECT_FALSE(b["tiling_keys"].empty());
    EXPECT_EQ(b["runs_here"], tessera::runtime::BinaryRunsOn(b["soc"].get<std::string>(),
                                                             {arch.soc, arch.compute_unit}));
    runs_here = runs_here || b["runs_here"].get<bool>();
  }
  EXPECT_TRUE(runs_here);
  const CliResult text = RunCli("packages --explain Cast");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("binaries of Cast in package builtin:"), std::string::npos);
}

TEST(ExplainTest, VendorsSkippedAreListedWithTheReason) {
  ScratchDir opp("vendors");
  const fs::path vendors = opp.path() / "vendors";
  fs::create_directories(vendors / "acme");    // listed, no manifest
  fs::create_directories(vendors / "zenith");  // present, not listed
  WriteText(vendors / "config.ini", "# vendors\nload_priority=acme,ghost\n");
  const nlohmann::json j =
      RunJson("packages --explain Relu", "TESSERA_OPP_PATH=" + opp.path().string());
  const nlohmann::json& v = j["vendors"];
  EXPECT_EQ(v["load_priority"], nlohmann::json::array({"acme", "ghost"}));
  ASSERT_EQ(v["vendors"].size(), 3u) << v.dump(2);
  EXPECT_EQ(v["vendors"][0]["name"], "acme");
  EXPECT_EQ(v["vendors"][0]["reason"], "no manifest.json");
  EXPECT_EQ(v["vendors"][1]["name"], "ghost");
  EXPECT_EQ(v["vendors"][1]["reason"], "vendor listed in load_priority but missing");
  EXPECT_EQ(v["vendors"][2]["name"], "zenith");
  EXPECT_EQ(v["vendors"][2]["listed"], false);
  EXPECT_NE(v["vendors"][2]["reason"].get<std::string>().find("not listed in load_priority"),
            std::string::npos);
  EXPECT_EQ(j["winner"]["package"], "builtin");
  EXPECT_EQ(j["not_chosen"].size(), 2u);

  const nlohmann::json unset = RunJson("packages --explain Relu");
  EXPECT_NE(unset["vendors"]["note"].get<std::string>().find("TESSERA_OPP_PATH is unset"),
            std::string::npos);
}

TEST(ExplainTest, UnknownOpExitsNonZeroWithTheSearchAndAClearMessage) {
  const CliResult r = RunCli("packages --explain Mull --shape 4 --shape 4 --dtype float32");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Operator Mull was not found in any operator package"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("Mull is defined by no package searched."), std::string::npos) << r.out;
  const nlohmann::json j = RunJson("packages --explain mul", "", 1);
  EXPECT_TRUE(j["winner"].is_null());
  EXPECT_NE(j["error"].get<std::string>().find("Did you mean \"Mul\"?"), std::string::npos);

  const CliResult stray = RunCli("packages --shape 4");
  EXPECT_EQ(stray.exit_code, 1);
  EXPECT_NE(stray.err.find("pass --explain OP"), std::string::npos) << stray.err;
  const CliResult bad = RunCli("packages --explain Mul --shape 4,x --shape 4 --dtype float32");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("call description rejected: --shape '4,x'"), std::string::npos) << bad.err;
}

// ---------------------------------------------------------------------------------------------
// verify

// A copy of the built-in package to break.
class VerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy(TESSERA_CLI_BUILTIN_DIR, dir(), fs::copy_options::recursive);
    manifest_ = ReadJson(dir() / "manifest.json");
    const unsigned seed = std::random_device{}();
    rng_.seed(seed);
    RecordProperty("seed", std::to_string(seed));
  }
  const fs::path& dir() const { return scratch_.path(); }
  void SaveManifest() { WriteText(dir() / "manifest.json", manifest_.dump(2)); }

  // A random op of the package, and one of its binaries that runs on this machine.
  nlohmann::json& RandomOp() { return manifest_["ops"][rng_() % manifest_["ops"].size()]; }
  nlohmann::json& RunnableBinary(nlohmann::json& op) {
    const tessera::device::ArchSpec& arch = tessera::device::CurrentArch();
    for (auto& b : op["binaries"]) {
      if (tessera::runtime::BinaryRunsOn(b["soc"].get<std::string>(),
                                         {arch.soc, arch.compute_unit})) {
        return b;
      }
    }
    ADD_FAILURE() << "no binary of " << op["op"] << " runs here";
    return op["binaries"][0];
  }

  PackageReport Verify() {
    auto report = tessera::runtime::VerifyPackage(dir());
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : PackageReport{};
  }

  ScratchDir scratch_{"verify"};
  nlohmann::json manifest_;
  std::mt19937 rng_;
};

std::string Dump(const PackageReport& r) {
  std::string s;
  for (const PackageFinding& f : r.findings) {
    s += std::string(tessera::runtime::FindingSeverityName(f.severity)) + " " + f.check + " " +
         f.subject + ": " + f.message + "\n";
  }
  return s;
}

// The findings of `check` with `severity`.
std::vector<PackageFinding> Findings(const PackageReport& r, const std::string& check,
                                     FindingSeverity severity) {
  std::vector<PackageFinding> out;
  for (const PackageFinding& f : r.findings) {
    if (f.check == check && f.severity == severity) out.push_back(f);
  }
  return out;
}

std::string BinarySubject(const nlohmann::json& op, const nlohmann::json& b) {
  return "op " + op["op"].get<std::string>() + " binary " + b["soc"].get<std::string>() + " " +
         b["simplifiedKey"].get<std::string>() + " (" + b["binPath"].get<std::string>() + ")";
}

TEST_F(VerifyTest, BuiltinPackagePassesEveryCheck) {
  const PackageReport r = Verify();
  EXPECT_TRUE(r.ok()) << Dump(r);
  EXPECT_EQ(r.package, "builtin");
  EXPECT_EQ(r.Count(FindingSeverity::kFail), 0u) << Dump(r);
  for (const char* check :
       {"manifest", "soc.names", "binary.present", "binary.sha256", "binary.load", "binary.entries",
        "kernel.type", "kernel.args", "op_library", "op_library.ops", "op_library.kernel",
        "tiling_hash", "soc.runnable"}) {
    EXPECT_EQ(Findings(r, check, FindingSeverity::kPass).size(), 1u) << check << "\n" << Dump(r);
  }

  const CliResult text = RunCli("verify " + std::string(TESSERA_CLI_BUILTIN_DIR));
  EXPECT_EQ(text.exit_code, 0) << text.err << text.out;
  EXPECT_NE(text.out.find("PASS  binary.sha256"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("result: PASS (0 failures"), std::string::npos) << text.out;
  const nlohmann::json j = RunJson("verify " + std::string(TESSERA_CLI_BUILTIN_DIR));
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["package"], "builtin");
  EXPECT_EQ(j["counts"]["fail"], 0);
  EXPECT_EQ(j["findings"].size(), j["counts"]["pass"].get<size_t>() +
                                      j["counts"]["warn"].get<size_t>() +
                                      j["counts"]["skip"].get<size_t>());
  for (const auto& f : j["findings"]) {
    for (const char* key : {"severity", "check", "subject", "message"})
      EXPECT_TRUE(f[key].is_string()) << key;
  }
}

TEST_F(VerifyTest, WrongSha256NamesTheBinary) {
  nlohmann::json& op = RandomOp();
  nlohmann::json& b = op["binaries"][rng_() % op["binaries"].size()];
  std::string sha = b["sha256"];
  char& digit = sha[rng_() % sha.size()];
  digit = digit == '0' ? '1' : '0';
  b["sha256"] = sha;
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "binary.sha256", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, BinarySubject(op, b));
  EXPECT_NE(fails[0].message.find("manifest sha256 " + sha), std::string::npos);

  const CliResult cli = RunCli("verify " + dir().string());
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_NE(cli.out.find("FAIL  binary.sha256   " + BinarySubject(op, b)), std::string::npos)
      << cli.out;
  EXPECT_NE(cli.out.find("result: FAIL (1 failure"), std::string::npos) << cli.out;
}

TEST_F(VerifyTest, ChangedLibraryFileIsReportedOnce) {
  const std::string rel = RandomOp()["binaries"][0]["binPath"];
  std::ofstream(dir() / rel, std::ios::binary | std::ios::app) << '\0';
  const PackageReport r = Verify();
  const auto fails = Findings(r, "binary.sha256", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "kernel library " + rel);
  EXPECT_NE(fails[0].message.find("for all"), std::string::npos) << fails[0].message;
}

TEST_F(VerifyTest, MissingBinaryFileIsNamed) {
  const std::string rel = RandomOp()["binaries"][0]["binPath"];
  fs::remove(dir() / rel);
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "binary.present", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "kernel library " + rel);
  EXPECT_NE(fails[0].message.find("missing: " + (dir() / rel).string() + " does not exist"),
            std::string::npos)
      << fails[0].message;
  EXPECT_NE(RunCli("verify " + dir().string()).exit_code, 0);
}

TEST_F(VerifyTest, ManifestTilingKeyTheLibraryLacksIsNamed) {
  nlohmann::json& op = RandomOp();
  nlohmann::json& b = RunnableBinary(op);
  const uint64_t key = 1000000 + rng_() % 1000000;
  b["kernels"].push_back({{"tilingKey", key}, {"kernelType", "AIV"}, {"taskRation", "1:2"}});
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "binary.entries", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, BinarySubject(op, b));
  const std::string entry = op["kernel"].get<std::string>() + "_" + std::to_string(key);
  EXPECT_NE(fails[0].message.find("tiling key " + std::to_string(key) +
                                  " is listed in the manifest, but " +
                                  b["binPath"].get<std::string>() + " exports no entry " + entry),
            std::string::npos)
      << fails[0].message;
}

TEST_F(VerifyTest, LibraryEntryMissingFromTheManifestIsNamed) {
  nlohmann::json& op = RandomOp();
  const nlohmann::json& runnable = RunnableBinary(op);
  const std::string rel = runnable["binPath"];
  const auto& kernels = runnable["kernels"];
  const uint64_t key = kernels[rng_() % kernels.size()]["tilingKey"];
  // Drop the key from every binary of the op that uses this library; nothing else changes.
  for (auto& b : op["binaries"]) {
    if (b["binPath"] != rel) continue;
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& k : b["kernels"]) {
      if (k["tilingKey"] != key) kept.push_back(k);
    }
    b["kernels"] = kept;
  }
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "binary.entries", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  const std::string entry = op["kernel"].get<std::string>() + "_" + std::to_string(key);
  EXPECT_EQ(fails[0].subject, "op " + op["op"].get<std::string>() + " kernel library " + rel);
  EXPECT_NE(fails[0].message.find("entry " + entry + " exported by " + rel +
                                  " is listed by no binary of op " + op["op"].get<std::string>()),
            std::string::npos)
      << fails[0].message;
  EXPECT_EQ(Findings(r, "binary.sha256", FindingSeverity::kPass).size(), 1u) << Dump(r);
}

TEST_F(VerifyTest, ChangedTilingHashIsNamedWithBothValues) {
  nlohmann::json& op = RandomOp();
  const std::string original = op["tiling_schema_hash"];
  op["tiling_schema_hash"] = "0x0123456789abcdef";
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "tiling_hash", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "op " + op["op"].get<std::string>());
  EXPECT_NE(fails[0].message.find("records tiling struct hash 0x0123456789abcdef"),
            std::string::npos);
  EXPECT_NE(fails[0].message.find("declares " + original), std::string::npos) << fails[0].message;
}

TEST_F(VerifyTest, ChangedSimplifiedKeyModeIsNamed) {
  // An op of mode 0 (MatMulAct declares mode 2, whose keys would not even parse as mode 1).
  nlohmann::json* picked = &RandomOp();
  while (picked->value("simplifiedKeyMode", 0) != 0)
    picked = &RandomOp();
  nlohmann::json& op = *picked;
  const int declared = 0, recorded = 1;
  op["simplifiedKeyMode"] = recorded;
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  const auto fails = Findings(r, "key_mode", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "op " + op["op"].get<std::string>());
  EXPECT_NE(fails[0].message.find("records simplifiedKeyMode " + std::to_string(recorded) +
                                  ", but lib/libbuiltin_ops.so declares mode " +
                                  std::to_string(declared)),
            std::string::npos)
      << fails[0].message;
}

TEST_F(VerifyTest, UnknownSocNamesTheOpAndBinary) {
  nlohmann::json& op = RandomOp();
  nlohmann::json& b = op["binaries"][rng_() % op["binaries"].size()];
  b["soc"] = "x86-64-v9";
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_EQ(r.findings[0].check, "manifest");
  EXPECT_EQ(r.findings[0].subject, BinarySubject(op, b));
  EXPECT_NE(r.findings[0].message.find("x86-64-v9"), std::string::npos) << r.findings[0].message;
  EXPECT_EQ(RunCli("verify " + dir().string()).exit_code, 1);
}

TEST_F(VerifyTest, MalformedJsonIsReportedWithItsPosition) {
  std::string text = manifest_.dump(2);
  text.resize(text.size() / 2 + rng_() % (text.size() / 4));
  WriteText(dir() / "manifest.json", text);
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.findings.size(), 1u) << Dump(r);
  EXPECT_EQ(r.findings[0].check, "manifest");
  EXPECT_EQ(r.findings[0].subject, "manifest.json");
  EXPECT_NE(r.findings[0].message.find("line "), std::string::npos) << r.findings[0].message;
  const nlohmann::json j = RunJson("verify " + dir().string(), "", 1);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["counts"]["fail"], 1);
  EXPECT_EQ(j["findings"][0]["check"], "manifest");
}

TEST_F(VerifyTest, KernelTypeMismatchIsNamed) {
  nlohmann::json& op = RandomOp();
  nlohmann::json& b = RunnableBinary(op);
  nlohmann::json& k = b["kernels"][rng_() % b["kernels"].size()];
  // Another type than the entry's (the random op may itself be a MIX op such as MatMulAct).
  const std::string wrong = k["kernelType"] == "MIX" ? "AIV" : "MIX";
  k["kernelType"] = wrong;
  SaveManifest();
  const PackageReport r = Verify();
  const auto fails = Findings(r, "kernel.type", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, BinarySubject(op, b));
  EXPECT_NE(fails[0].message.find("tiling key " + k["tilingKey"].dump() +
                                  ": the manifest says kernelType " + wrong),
            std::string::npos)
      << fails[0].message;
}

TEST_F(VerifyTest, OpDefinedInTheLibraryButNotInTheManifestIsNamed) {
  const size_t index = rng_() % manifest_["ops"].size();
  const std::string op = manifest_["ops"][index]["op"];
  const std::string kernel = manifest_["ops"][index]["kernel"];
  manifest_["ops"].erase(index);
  SaveManifest();
  const PackageReport r = Verify();
  const auto fails = Findings(r, "op_library.ops", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "op " + op);
  EXPECT_NE(fails[0].message.find("the manifest does not list it"), std::string::npos);
  // Its kernel's entries are now used by no binary.
  const auto warns = Findings(r, "binary.entries", FindingSeverity::kWarn);
  ASSERT_FALSE(warns.empty()) << Dump(r);
  EXPECT_NE(warns[0].message.find("of kernel " + kernel + " "), std::string::npos)
      << warns[0].message;
}

TEST_F(VerifyTest, BinariesForSocsThisMachineCannotRunAreSkippedNotFailed) {
  // Relabel every binary as armv8-a (an x86 machine cannot load them): skipped, and a warning
  // that nothing runs here; no failure.
  if (tessera::device::CurrentArch().soc == "armv8-a") GTEST_SKIP() << "needs a non-arm machine";
  for (auto& op : manifest_["ops"]) {
    const std::string soc = op["binaries"][0]["soc"];
    nlohmann::json kept = nlohmann::json::array();
    for (auto& b : op["binaries"]) {
      if (b["soc"] != soc) continue;
      b["soc"] = "armv8-a";
      kept.push_back(b);
    }
    op["binaries"] = kept;
  }
  SaveManifest();
  const PackageReport r = Verify();
  EXPECT_TRUE(r.ok()) << Dump(r);
  const auto skips = Findings(r, "binary.load", FindingSeverity::kSkip);
  ASSERT_EQ(skips.size(), 1u) << Dump(r);
  EXPECT_NE(skips[0].message.find("built for armv8-a; not loadable here"), std::string::npos);
  const auto warns = Findings(r, "soc.runnable", FindingSeverity::kWarn);
  ASSERT_EQ(warns.size(), 1u) << Dump(r);
  EXPECT_EQ(warns[0].subject, "package");
  EXPECT_NE(warns[0].message.find("no binary runs on this machine"), std::string::npos);
  const CliResult cli = RunCli("verify " + dir().string());
  EXPECT_EQ(cli.exit_code, 0) << cli.out;
  EXPECT_NE(cli.out.find("SKIP  binary.load"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("result: PASS (0 failures"), std::string::npos) << cli.out;
}

// True when `file` (by its real path) is mapped into this process.
bool IsMapped(const fs::path& file) {
  std::error_code ec;
  const std::string real = fs::weakly_canonical(file, ec).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(real) != std::string::npos) return true;
  }
  return false;
}

TEST_F(VerifyTest, KernelLibraryFailingItsChecksumIsNeverLoaded) {
  nlohmann::json& op = RandomOp();
  const std::string rel = RunnableBinary(op)["binPath"];
  std::ofstream(dir() / rel, std::ios::binary | std::ios::app) << "tampered";
  const PackageReport r = Verify();
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(Findings(r, "binary.sha256", FindingSeverity::kFail).size(), 1u) << Dump(r);
  bool skipped = false;
  for (const PackageFinding& f : Findings(r, "binary.load", FindingSeverity::kSkip)) {
    skipped = skipped || (f.subject == "kernel library " + rel &&
                          f.message.find("never loaded") != std::string::npos);
  }
  EXPECT_TRUE(skipped) << Dump(r);
  EXPECT_FALSE(IsMapped(dir() / rel));
}

TEST_F(VerifyTest, OpLibraryReplacedIsNotLoaded) {
  const std::string lib = manifest_["tiling_library"];
  std::ofstream(dir() / lib, std::ios::binary | std::ios::app) << "x";
  const PackageReport r = Verify();
  const auto fails = Findings(r, "op_library", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_NE(fails[0].message.find("checksum mismatch"), std::string::npos) << fails[0].message;
  EXPECT_NE(fails[0].message.find("not loaded"), std::string::npos) << fails[0].message;
  EXPECT_FALSE(IsMapped(dir() / lib));
  EXPECT_EQ(RunCli("verify " + dir().string()).exit_code, 1);
}

TEST_F(VerifyTest, OpMappedToAnotherOpsKernelIsNamed) {
  // The Add entry names the Sub kernel (with Sub's binaries): the op library registers Add with
  // its own kernel, so a call would compute the wrong result.
  nlohmann::json* add = nullptr;
  const nlohmann::json* sub = nullptr;
  for (auto& op : manifest_["ops"]) {
    if (op["op"] == "Add") add = &op;
    if (op["op"] == "Sub") sub = &op;
  }
  ASSERT_TRUE(add != nullptr && sub != nullptr);
  const std::string add_kernel = (*add)["kernel"];
  (*add)["kernel"] = (*sub)["kernel"];
  SaveManifest();
  const PackageReport r = Verify();
  const auto fails = Findings(r, "op_library.kernel", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_EQ(fails[0].subject, "op Add");
  EXPECT_NE(fails[0].message.find("registers it with kernel " + add_kernel), std::string::npos)
      << fails[0].message;
}

TEST_F(VerifyTest, KernelLibrarySymlinkLeavingThePackageIsRefused) {
  const std::string rel = RunnableBinary(RandomOp())["binPath"];
  fs::remove(dir() / rel);
  fs::create_symlink(fs::path(TESSERA_CLI_BUILTIN_DIR) / rel, dir() / rel);
  const PackageReport r = Verify();
  const auto fails = Findings(r, "binary.present", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_NE(fails[0].message.find("outside the package"), std::string::npos) << fails[0].message;
}

TEST_F(VerifyTest, ManifestFifoOrDevZeroIsAFailureNotAHang) {
  fs::remove(dir() / "manifest.json");
  ASSERT_EQ(::mkfifo((dir() / "manifest.json").c_str(), 0600), 0);
  PackageReport r = Verify();
  auto fails = Findings(r, "manifest", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_NE(fails[0].message.find("is a FIFO"), std::string::npos) << fails[0].message;
  fs::remove(dir() / "manifest.json");
  fs::create_symlink("/dev/zero", dir() / "manifest.json");
  r = Verify();
  fails = Findings(r, "manifest", FindingSeverity::kFail);
  ASSERT_EQ(fails.size(), 1u) << Dump(r);
  EXPECT_NE(fails[0].message.find("character device"), std::string::npos) << fails[0].message;
}

TEST(VerifyArgsTest, NotAPackageDirectoryIsAnError) {
  const ScratchDir scratch("args");
  const fs::path file = scratch.path() / "file";
  WriteText(file, "x");
  auto missing = tessera::runtime::VerifyPackage(scratch.path() / "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("does not exist"), std::string::npos);
  auto not_dir = tessera::runtime::VerifyPackage(file);
  ASSERT_FALSE(not_dir.ok());
  EXPECT_NE(not_dir.status().message().find("is not a directory"), std::string::npos);
  const CliResult cli = RunCli("verify " + file.string());
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_NE(cli.err.find("tessera verify: "), std::string::npos) << cli.err;
  // A directory without a manifest is a package that fails the manifest check.
  auto empty = tessera::runtime::VerifyPackage(scratch.path());
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->ok());
  EXPECT_EQ(empty->findings.at(0).check, "manifest");
}

}  // namespace
