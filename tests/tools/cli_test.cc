// The tessera CLI as a user runs it: `ops`, `packages`, `tiling`, `run` and `demo` with and without
// --json, and argument errors that must exit non-zero with a message naming the argument.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace {

using tessera::cli_test::CliResult;
using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;

const nlohmann::json* FindOp(const nlohmann::json& ops, const std::string& name) {
  for (const auto& op : ops["ops"]) {
    if (op["op"] == name) return &op;
  }
  return nullptr;
}

TEST(CliTest, OpsListsEveryBuiltinOpWithCombinationsAndSocs) {
  const nlohmann::json j = RunJson("ops");
  for (const char* name : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Abs", "Exp", "Log",
                           "Sqrt", "Rsqrt", "Relu", "Sigmoid", "Adds", "Muls", "Cast"}) {
    const nlohmann::json* op = FindOp(j, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ((*op)["package"], "builtin") << name;
    EXPECT_EQ((*op)["source"], "built-in") << name;
    EXPECT_FALSE((*op)["socs"].empty()) << name;
    EXPECT_TRUE((*op)["shadowed"].empty()) << name;
  }
  const nlohmann::json& add = *FindOp(j, "Add");
  ASSERT_FALSE(add["combinations"].empty());
  const nlohmann::json& first = add["combinations"][0];
  ASSERT_EQ(first["inputs"].size(), 2u);
  EXPECT_EQ(first["inputs"][0]["name"], "x1");
  EXPECT_EQ(first["inputs"][0]["dtype"], "float32");
  EXPECT_EQ(first["inputs"][0]["format"], "ND");
  EXPECT_EQ(first["outputs"][0]["name"], "y");
  const nlohmann::json& cast = *FindOp(j, "Cast");
  ASSERT_EQ(cast["attrs"].size(), 1u);
  EXPECT_EQ(cast["attrs"][0]["name"], "dst_type");
  EXPECT_EQ(cast["attrs"][0]["type"], "int");

  const CliResult text = RunCli("ops");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("float32,float32->float32"), std::string::npos) << text.out;
}

TEST(CliTest, PackagesShowsSearchOrderAndWhyCandidatesAreSkipped) {
  const nlohmann::json j = RunJson("packages");
  ASSERT_EQ(j["search"].size(), 1u);
  EXPECT_EQ(j["search"][0]["origin"], "built-in");
  EXPECT_EQ(j["search"][0]["used"], true);
  ASSERT_EQ(j["packages"].size(), 1u);
  EXPECT_EQ(j["packages"][0]["name"], "builtin");
  EXPECT_EQ(j["packages"][0]["op_count"], 25);
  EXPECT_FALSE(j["packages"][0]["version"].get<std::string>().empty());

  const nlohmann::json k =
      RunJson("packages", "TESSERA_CUSTOM_OPP_PATH=/nonexistent/tessera_cli_test");
  ASSERT_EQ(k["search"].size(), 2u);
  EXPECT_EQ(k["search"][0]["origin"], "custom");
  EXPECT_EQ(k["search"][0]["source"], "TESSERA_CUSTOM_OPP_PATH[0]");
  EXPECT_EQ(k["search"][0]["used"], false);
  EXPECT_EQ(k["search"][0]["reason"], "does not exist");
  EXPECT_EQ(k["search"][1]["origin"], "built-in");
  EXPECT_FALSE(k["warnings"].empty());
}

TEST(CliTest, CustomPackageShadowsBuiltinOps) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("tessera_cli_shadow_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(TESSERA_CLI_BUILTIN_DIR, dir, fs::copy_options::recursive);
  nlohmann::json manifest;
  std::ifstream(dir / "manifest.json") >> manifest;
  manifest["package"] = "shadow";
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& op : manifest["ops"]) {
    if (op["op"] == "Add") kept.push_back(op);
  }
  manifest["ops"] = kept;
  std::ofstream(dir / "manifest.json") << manifest.dump(2);
  const std::string env = "TESSERA_CUSTOM_OPP_PATH=" + dir.string();

  const nlohmann::json ops = RunJson("ops", env);
  const nlohmann::json* add = FindOp(ops, "Add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ((*add)["package"], "shadow");
  EXPECT_EQ((*add)["source"], "TESSERA_CUSTOM_OPP_PATH[0]");
  ASSERT_EQ((*add)["shadowed"].size(), 1u);
  EXPECT_EQ((*add)["shadowed"][0]["package"], "builtin");
  EXPECT_EQ((*FindOp(ops, "Mul"))["package"], "builtin");

  const nlohmann::json pkgs = RunJson("packages", env);
  ASSERT_EQ(pkgs["packages"].size(), 2u);
  EXPECT_EQ(pkgs["packages"][0]["name"], "shadow");
  EXPECT_EQ(pkgs["packages"][0]["op_count"], 1);

  const nlohmann::json run =
      RunJson("run Add --shape 100 --shape 1 --dtype float32 --iters 2", env);
  EXPECT_EQ(run["package"], "shadow");
  EXPECT_EQ(run["check"]["ok"], true);
  fs::remove_all(dir);
}

TEST(CliTest, TilingShowsPlanFieldsAndPerCoreRanges) {
  const nlohmann::json j = RunJson("tiling Add --shape 1024,1024 --shape 1024 --dtype float32");
  EXPECT_EQ(j["package"], "builtin");
  EXPECT_EQ(j["simplified_key"], "Add/d=0,p=0/DT_FLOAT,ND/DT_FLOAT,ND/DT_FLOAT,ND");
  EXPECT_FALSE(j["soc"].get<std::string>().empty());
  EXPECT_NE(j["binary"].get<std::string>().find(j["soc"].get<std::string>()), std::string::npos);
  // The tiling key is the dtype code (float32: 0); the plan is an elewise problem: rows of the
  // broadcast's innermost dim.
  EXPECT_EQ(j["tiling_key"], 0);
  EXPECT_EQ(j["tiling_key_hex"], "0x0");
  EXPECT_EQ(j["workspace"], 0);
  const int block_dim = j["block_dim"];
  EXPECT_GE(block_dim, 1);
  EXPECT_EQ(j["outputs"][0], "float32[1024, 1024] ND");
  EXPECT_EQ(j["tiling_data"]["struct"], "ElewiseTilingData");
  EXPECT_EQ(j["fields"]["rows"], 1024);
  EXPECT_EQ(j["fields"]["cols"], 1024);
  EXPECT_EQ(j["fields"]["numOperands"], 3);

  const CliResult text = RunCli("tiling Cast --shape 100000 --dtype float16 --attr dst_type=27");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("tiling key      6913 (0x1b01"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("ElewiseTilingData"), std::string::npos) << text.out;
}

TEST(CliTest, RunChecksBfloat16MulAndReportsCacheHits) {
  const nlohmann::json j = RunJson("run Mul --shape 4097 --shape 4097 --dtype bfloat16 --iters 3");
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["check"]["reference"], true);
  EXPECT_EQ(j["check"]["ok"], true);
  EXPECT_EQ(j["check"]["checked"], 4097);
  EXPECT_EQ(j["check"]["mismatches"], 0);
  EXPECT_EQ(j["iters"], 3);
  EXPECT_EQ(j["cache"]["cold_hit"], false);
  EXPECT_EQ(j["cache"]["hits"], 3);
  EXPECT_EQ(j["cache"]["hit"], true);
  EXPECT_EQ(j["cache"]["tiling_calls"], 0);
  EXPECT_EQ(j["bytes"], 3 * 4097 * 2);
  EXPECT_GT(j["median_us"].get<double>(), 0.0);
  EXPECT_GT(j["gbps"].get<double>(), 0.0);
}

TEST(CliTest, RunPassesTypedAttributes) {
  const nlohmann::json adds = RunJson("run Adds --shape 1000 --dtype float16 --attr value=2.5");
  EXPECT_EQ(adds["attrs"]["value"], 2.5);
  EXPECT_EQ(adds["check"]["ok"], true);

  const nlohmann::json cast =
      RunJson("run Cast --shape 3,333 --dtype float32 --attr dst_type=27 --iters 2");
  EXPECT_EQ(cast["attrs"]["dst_type"], 27);
  EXPECT_EQ(cast["outputs"][0], "bfloat16[3, 333] ND");
  EXPECT_EQ(cast["check"]["ok"], true);

  const CliResult text = RunCli("run Maximum --shape 2,1,65 --shape 3,65 --dtype int32 --iters 2");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("check        OK: 390 elements"), std::string::npos) << text.out;
}

struct ErrorCase {
  const char* args;
  const char* message;
};

TEST(CliTest, BadArgumentsExitNonZeroNamingTheArgument) {
  const ErrorCase cases[] = {
      {"run Nope --shape 4 --dtype float32", "Operator Nope was not found"},
      {"tiling Nope --shape 4 --dtype float32", "Searched, in priority order"},
      {"run Add --shape 4,x --shape 4 --dtype float32", "--shape '4,x'"},
      {"tiling Add --shape 4 --shape 4 --dtype floaty", "--dtype 'floaty'"},
      {"run Add --shape 4 --shape 4", "--dtype is required"},
      {"run Add --shape 4 --dtype float32", "expected one per input: x1 (required), x2"},
      {"run Add --shape 4 --shape 5 --dtype float32", "cannot be broadcast"},
      {"run Adds --shape 4 --dtype float32", "requires attribute 'value' (float)"},
      {"run Adds --shape 4 --dtype float32 --attr value=abc", "--attr 'value=abc'"},
      {"run Adds --shape 4 --dtype float32 --attr vlue=1", "has no attribute 'vlue'"},
      {"run Cast --shape 4 --dtype float32 --attr dst_type=99", "not a DataType code"},
      {"run Div --shape 4 --shape 4 --dtype int32", "Supported dtype and format list is"},
      {"run Add --shape 4 --shape 4 --dtype float32 --iters 0", "--iters 0"},
  };
  for (const ErrorCase& c : cases) {
    const CliResult r = RunCli(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\nstderr: " << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << "\nstdout: " << r.out;
  }
}

TEST(CliTest, DemoRunsEveryBuiltinOpThroughTheTwoStageApi) {
  const CliResult r = RunCli("demo");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== built-in ops through the two-stage API"), std::string::npos);
  for (const char* line : {"  Add      float32", "  Cast     float32", "  Sigmoid  bfloat16"}) {
    const size_t at = r.out.find(line);
    ASSERT_NE(at, std::string::npos) << line << "\n" << r.out;
    EXPECT_NE(r.out.substr(at, r.out.find('\n', at) - at).find(" OK "), std::string::npos) << line;
  }
  EXPECT_EQ(r.out.find("MISMATCH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("demo passed"), std::string::npos);
}

}  // namespace
