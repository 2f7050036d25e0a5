// `tessera run` checks custom ops: an OpDef's Reference() (package reference_ops: a correct, a
// wrong, a failing and no reference; the example custom_add), `--save DIR` writing .npy files
// whose values are what the kernel computed, and tessera_package_tool's error for an op that ends
// up with no binaries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "tessera/core/float16.h"

namespace {

namespace fs = std::filesystem;
using tessera::cli_test::CliResult;
using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;

const std::string kEnv = std::string("TESSERA_CUSTOM_OPP_PATH=") + TESSERA_TEST_REFERENCE_DIR;

fs::path TempDir(const std::string& name) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("tessera_run_ref_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

std::string ReadFile(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RunReferenceTest, CorrectKernelPassesItsOwnReferenceForEveryDtypeAndShape) {
  for (const char* dtype : {"float32", "float16", "bfloat16", "int32"}) {
    for (int n : {1, 7, 4097}) {
      const std::string shape = std::to_string(n);
      const nlohmann::json j = RunJson(
          "run RefSum --shape " + shape + " --shape " + shape + " --dtype " + dtype + " --iters 1",
          kEnv);
      EXPECT_EQ(j["package"], "reference_ops");
      const nlohmann::json& c = j["check"];
      EXPECT_EQ(c["reference"], true) << c.dump();
      EXPECT_EQ(c["source"], "op definition") << c.dump();
      EXPECT_EQ(c["ok"], true) << dtype << " " << n << ": " << c.dump();
      EXPECT_EQ(c["checked"], n);
      EXPECT_EQ(c["mismatches"], 0);
      EXPECT_EQ(c["max_abs_error"], 0.0) << c.dump();
      EXPECT_EQ(c["tolerance_ulps"], std::string(dtype) == "int32" ? 0.0 : 1.0);
      EXPECT_EQ(j["ok"], true);
    }
  }
  const CliResult text = RunCli("run RefSum --shape 7 --shape 7 --dtype float16 --iters 1", kEnv);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("check        OK: 7 elements (op definition reference), tolerance 1 ulp"),
            std::string::npos)
      << text.out;
}

TEST(RunReferenceTest, WrongReferenceIsAMismatchWithExitCode1) {
  const nlohmann::json j =
      RunJson("run RefWrongSum --shape 4097 --shape 4097 --dtype float32 --iters 1", kEnv, 1);
  const nlohmann::json& c = j["check"];
  EXPECT_EQ(c["ok"], false) << c.dump();
  EXPECT_EQ(c["source"], "op definition");
  EXPECT_GT(c["mismatches"].get<int64_t>(), 4000) << c.dump();
  EXPECT_GE(c["first_mismatch"].get<int64_t>(), 0);
  EXPECT_GT(c["max_abs_error"].get<double>(), 0);
  EXPECT_GT(c["max_rel_error"].get<double>(), 0);
  EXPECT_EQ(j["ok"], false);

  const CliResult text =
      RunCli("run RefWrongSum --shape 7 --shape 7 --dtype int32 --iters 1", kEnv);
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("check        MISMATCH: 7 elements (op definition reference)"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("wrong (first at "), std::string::npos) << text.out;
}

TEST(RunReferenceTest, FailingReferenceIsAnErrorNamingTheOp) {
  const CliResult r =
      RunCli("run RefWrongSum --shape 7 --shape 7 --dtype float32 --attr alpha=0 --iters 1", kEnv);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tessera run: InvalidArgument: the Reference() of RefWrongSum failed: "
                       "alpha 0 is not supported by this reference"),
            std::string::npos)
      << r.err;
}

TEST(RunReferenceTest, OpWithoutReferenceSaysSo) {
  const nlohmann::json j =
      RunJson("run RefNoRef --shape 7 --shape 7 --dtype float32 --iters 1", kEnv);
  EXPECT_EQ(j["check"]["reference"], false);
  EXPECT_EQ(j["check"]["note"], "no reference");
  EXPECT_EQ(j["ok"], true);
  const CliResult text = RunCli("run RefNoRef --shape 7 --shape 7 --dtype float32 --iters 1", kEnv);
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("check        no reference for RefNoRef"), std::string::npos) << text.out;
}

TEST(RunReferenceTest, ExampleCustomAddAndBuiltinAddAreEachCheckedByTheirOwnDefinition) {
  const nlohmann::json custom =
      RunJson("run Add --shape 4097 --shape 4097 --dtype float32 --iters 1",
              std::string("TESSERA_CUSTOM_OPP_PATH=") + TESSERA_CLI_CUSTOM_DIR);
  EXPECT_EQ(custom["package"], "custom_add");
  EXPECT_EQ(custom["check"]["source"], "op definition") << custom["check"].dump();
  EXPECT_EQ(custom["check"]["ok"], true) << custom["check"].dump();
  const nlohmann::json builtin = RunJson("run Add --shape 7 --shape 7 --dtype float32 --iters 1");
  EXPECT_EQ(builtin["package"], "builtin");
  EXPECT_EQ(builtin["check"]["source"], "op definition");
  EXPECT_EQ(builtin["check"]["ok"], true);
}

// The matmul ops' references set the call's tolerance (CATLASS's rtol by K and dtype, as ulps of
// the output dtype), which the check reports.
TEST(RunReferenceTest, BuiltinMatmulOpsAreCheckedWithTheTolerancesTheirReferencesSet) {
  struct Case {
    std::string args;
    double ulps;
  };
  const Case cases[] = {
      {"MatMul --shape 9,2100 --shape 2100,5 --shape 5 --out-shape 9,5 --dtype float32",
       0x1p23 / 128},
      {"MatMul --shape 9,40 --shape 5,40 --shape 5 --out-shape 9,5 --attr transpose_x2=true "
       "--dtype float16",
       (1.0 / 256 + 0x1p-8) / 0x1p-10},
      {"BatchMatMul --shape 3,1,9,40 --shape 2,40,5 --out-shape 3,2,9,5 --dtype bfloat16",
       (1.0 / 256 + 0x1p-7) / 0x1p-7},
      {"Addmm --shape 5 --shape 9,40 --shape 40,5 --out-shape 9,5 --attr beta=-2 --dtype float32",
       0x1p23 / 256},
      {"MatMulAct --shape 9,40 --shape 40,5 --shape 5 --out-shape 9,5 --attr act=gelu "
       "--dtype float32",
       0x1p23 / 256},
      {"MatMul --shape 9,40 --shape 40,5 --shape 5 --out-shape 9,5 --dtype int8,int8,int32 "
       "--out-dtype int32",
       0}};
  for (const Case& c : cases) {
    const nlohmann::json j = RunJson("run " + c.args + " --iters 1");
    EXPECT_EQ(j["check"]["source"], "op definition") << c.args;
    EXPECT_EQ(j["check"]["ok"], true) << c.args << ": " << j["check"].dump();
    EXPECT_EQ(j["check"]["tolerance_ulps"], c.ulps) << c.args;
  }
}

// The data of an .npy file the writer produced: the bytes after its header.
std::string NpyData(const std::string& file, const std::string& expect_dict) {
  EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t len = static_cast<uint8_t>(file[8]) | static_cast<uint8_t>(file[9]) << 8;
  EXPECT_EQ((10 + len) % 64, 0u);
  EXPECT_EQ(file.substr(10, expect_dict.size()), expect_dict);
  return file.substr(10 + len);
}

TEST(RunReferenceTest, SaveWritesInputsAndOutputsAsNpyHoldingWhatTheKernelComputed) {
  const fs::path dir = TempDir("save");
  const nlohmann::json j = RunJson(
      "run RefWrongSum --shape 7 --shape 7 --dtype bfloat16 --iters 1 "
      "--save " +
          dir.string(),
      kEnv, 1);  // saved even when the check fails
  ASSERT_TRUE(j["saved"].is_object()) << j.dump();
  ASSERT_EQ(j["saved"]["files"].size(), 3u);
  EXPECT_EQ(j["saved"]["files"][0]["file"], "input0_x1.npy");
  EXPECT_EQ(j["saved"]["files"][1]["file"], "input1_x2.npy");
  EXPECT_EQ(j["saved"]["files"][2]["file"], "output0_y.npy");
  EXPECT_EQ(j["saved"]["files"][2]["npy_dtype"], "<u2");
  const std::string dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (7,), }";
  const std::string a = NpyData(ReadFile(dir / "input0_x1.npy"), dict);
  const std::string b = NpyData(ReadFile(dir / "input1_x2.npy"), dict);
  const std::string y = NpyData(ReadFile(dir / "output0_y.npy"), dict);
  ASSERT_EQ(a.size(), 14u);
  ASSERT_EQ(b.size(), 14u);
  ASSERT_EQ(y.size(), 14u);
  for (size_t i = 0; i < 7; ++i) {
    uint16_t ra, rb, ry;
    std::memcpy(&ra, a.data() + 2 * i, 2);
    std::memcpy(&rb, b.data() + 2 * i, 2);
    std::memcpy(&ry, y.data() + 2 * i, 2);
    const float want = static_cast<float>(
        tessera::bfloat16(static_cast<float>(tessera::bfloat16::FromBits(ra)) * 2 +
                          static_cast<float>(tessera::bfloat16::FromBits(rb))));
    EXPECT_EQ(static_cast<float>(tessera::bfloat16::FromBits(ry)), want) << i;
  }
  const CliResult text =
      RunCli("run RefSum --shape 7 --shape 7 --dtype int32 --iters 1 --save " + dir.string(), kEnv);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("saved        " + dir.string() + ": input0_x1.npy input1_x2.npy output0_y.npy"),
      std::string::npos)
      << text.out;
  EXPECT_EQ(NpyData(ReadFile(dir / "output0_y.npy"),
                    "{'descr': '<i4', 'fortran_order': False, 'shape': (7,), }")
                .size(),
            28u);
  fs::remove_all(dir);
}

// The float32 values of an .npy file the writer produced with numpy dict `dict`.
std::vector<float> NpyFloats(const fs::path& file, const std::string& dict) {
  const std::string data = NpyData(ReadFile(file), dict);
  std::vector<float> v(data.size() / 4);
  std::memcpy(v.data(), data.data(), v.size() * 4);
  return v;
}

std::string F32Dict(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

// Every value in [lo, hi] (with `either_sign`: |v| in [lo, hi], both signs present), and the
// range is used, not just a corner of it.
void ExpectInRange(const std::vector<float>& v, double lo, double hi, bool either_sign = false) {
  ASSERT_FALSE(v.empty());
  double min = INFINITY, max = -INFINITY;
  bool negative = false, positive = false;
  for (float x : v) {
    const double m = either_sign ? std::fabs(x) : x;
    min = std::min(min, m);
    max = std::max(max, m);
    negative |= x < 0;
    positive |= x > 0;
  }
  EXPECT_GE(min, lo);
  EXPECT_LE(max, hi);
  EXPECT_LT(min, lo + (hi - lo) / 10);
  EXPECT_GT(max, hi - (hi - lo) / 10);
  if (either_sign) {
    EXPECT_TRUE(negative && positive);
  }
}

TEST(RunReferenceTest, InputsAreDrawnFromEachInputsDeclaredValueRange) {
  const fs::path dir = TempDir("range");
  const std::string save = " --dtype float32 --iters 1 --save " + dir.string();
  // A custom op: x2 declares [1, 2]; x1 declares nothing ([-100, 100]).
  ASSERT_EQ(RunCli("run RefSum --shape 1000 --shape 1000" + save, kEnv).exit_code, 0);
  ExpectInRange(NpyFloats(dir / "input0_x1.npy", F32Dict("(1000,)")), -100, 100);
  ExpectInRange(NpyFloats(dir / "input1_x2.npy", F32Dict("(1000,)")), 1, 2);
  // Built-in ops: Div's divisor away from 0 with either sign, Log's x positive, LayerNorm's x,
  // gamma and beta.
  ASSERT_EQ(RunCli("run Div --shape 1000 --shape 1000" + save).exit_code, 0);
  ExpectInRange(NpyFloats(dir / "input0_x1.npy", F32Dict("(1000,)")), -100, 100);
  ExpectInRange(NpyFloats(dir / "input1_x2.npy", F32Dict("(1000,)")), 0.5, 100, true);
  ASSERT_EQ(RunCli("run Log --shape 1000" + save).exit_code, 0);
  ExpectInRange(NpyFloats(dir / "input0_x.npy", F32Dict("(1000,)")), 1e-3, 1e3);
  ASSERT_EQ(RunCli("run LayerNorm --shape 4,250" + save).exit_code, 0);
  ExpectInRange(NpyFloats(dir / "input0_x.npy", F32Dict("(4, 250)")), 1, 5);
  ExpectInRange(NpyFloats(dir / "input1_gamma.npy", F32Dict("(250,)")), 0.5, 1.5);
  ExpectInRange(NpyFloats(dir / "input2_beta.npy", F32Dict("(250,)")), -1, 1);
  fs::remove_all(dir);
}

TEST(RunReferenceTest, SaveIntoAFileIsRefusedBeforeRunning) {
  const fs::path dir = TempDir("file");
  fs::create_directories(dir);
  std::ofstream(dir / "plain") << "x";
  const CliResult r = RunCli(
      "run RefSum --shape 7 --shape 7 --dtype float32 --save " + (dir / "plain").string(), kEnv);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--save '" + (dir / "plain").string() + "': exists and is not a directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  fs::remove_all(dir);
}

// tessera_package_tool on an op library whose RefSum is configured only for a SoC the package is
// not built for.
TEST(PackageToolTest, OpWithNoBinariesNamesTheOpBothSocListsAndTheFix) {
  const fs::path dir = TempDir("nobin");
  fs::create_directories(dir / "lib");
  fs::copy_file(TESSERA_TEST_MISCONFIGURED_OPS, dir / "lib/libmisconfigured_ops.so");
  // One kernel library of reference_ops (all are built from the same sources).
  fs::path kernel;
  std::string soc;
  for (const auto& e : fs::directory_iterator(fs::path(TESSERA_TEST_REFERENCE_DIR) / "kernels")) {
    if (e.path().filename() == TESSERA_TEST_UNBUILT_SOC) continue;
    soc = e.path().filename().string();
    kernel = e.path() / "libreference_ops_kernels.so";
  }
  if (soc.empty())
    GTEST_SKIP() << "reference_ops is built for " << TESSERA_TEST_UNBUILT_SOC << " only";
  fs::create_directories(dir / "kernels" / soc);
  fs::copy_file(kernel, dir / "kernels" / soc / "libk.so");
  const std::string err_file = (dir / "err.txt").string();
  const std::string cmd = std::string(TESSERA_TEST_PACKAGE_TOOL) + " --dir " + dir.string() +
                          " --name misconfigured --version 1.0 --ops-lib "
                          "lib/libmisconfigured_ops.so --kernels " +
                          soc + "=kernels/" + soc + "/libk.so 2>" + err_file;
  const int status = std::system(cmd.c_str());
  EXPECT_NE(status, 0);
  const std::string err = ReadFile(err_file);
  const std::string unbuilt = TESSERA_TEST_UNBUILT_SOC;
  for (const std::string& part :
       {std::string("package misconfigured: op RefSum ends up with no binaries"),
        "its OpDef configures the SoCs " + unbuilt + " (AddConfig)",
        "but the package is built for " + soc +
            " (SOCS of tessera_add_op_package, default "
            "TESSERA_SOC_SERIES)",
        "add AddConfig(\"" + soc + "\") to RefSum's OpDef",
        "SOCS " + unbuilt + " in tessera_add_op_package(NAME misconfigured ...)",
        "-DTESSERA_SOC_SERIES=\"" + unbuilt + "\""}) {
    EXPECT_NE(err.find(part), std::string::npos) << "missing: " << part << "\n" << err;
  }
  EXPECT_EQ(err.find("binaries is empty"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "manifest.json"));
  fs::remove_all(dir);
}

}  // namespace
