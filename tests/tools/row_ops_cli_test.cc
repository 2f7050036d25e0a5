// `tessera run` and `tessera tiling` on the row ops (RmsNorm, AddRmsNorm, LayerNorm, Softmax,
// SwiGlu): one --shape is enough (gamma, beta and x2 are derived), every output is checked
// against the CLI's reference, and unsupported attributes fail with the op's message.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"

namespace {

using tessera::cli_test::CliResult;
using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;

TEST(RowOpsCliTest, RunRmsNormBfloat16ChecksTheResult) {
  const CliResult r = RunCli("run RmsNorm --shape 64,4096 --dtype bfloat16 --iters 2");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("RmsNorm(bfloat16[64, 4096] ND, bfloat16[4096] ND) -> bfloat16[64, 4096]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check        OK: 262144 elements"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("package builtin"), std::string::npos) << r.out;
}

TEST(RowOpsCliTest, EveryRowOpRunsAndMatchesItsReference) {
  struct Case {
    const char* op;
    const char* dtype;
    const char* out;
    int64_t checked;  // elements over every output
  };
  for (const Case& c : {Case{"RmsNorm", "float32", "float32[7, 34] ND", 7 * 34},
                        Case{"AddRmsNorm", "float16", "float16[7, 34] ND", 2 * 7 * 34},
                        Case{"LayerNorm", "bfloat16", "bfloat16[7, 34] ND", 7 * 34},
                        Case{"Softmax", "float16", "float16[7, 34] ND", 7 * 34},
                        Case{"SwiGlu", "float32", "float32[7, 17] ND", 7 * 17}}) {
    SCOPED_TRACE(c.op);
    const nlohmann::json j =
        RunJson(std::string("run ") + c.op + " --shape 7,34 --dtype " + c.dtype + " --iters 1");
    EXPECT_EQ(j["ok"], true) << j.dump(2);
    EXPECT_EQ(j["outputs"][0], c.out);
    EXPECT_EQ(j["check"]["reference"], true);
    EXPECT_EQ(j["check"]["ok"], true) << j["check"].dump();
    EXPECT_EQ(j["check"]["checked"], c.checked);
    EXPECT_EQ(j["tiling_key"], std::string(c.dtype) == "float32"   ? 0
                               : std::string(c.dtype) == "float16" ? 1
                                                                   : 27);
  }
}

TEST(RowOpsCliTest, AttributesReachTheOp) {
  const nlohmann::json j = RunJson("run RmsNorm --shape 4,33 --dtype float32 --attr epsilon=0.5");
  EXPECT_EQ(j["attrs"]["epsilon"], 0.5);
  EXPECT_EQ(j["check"]["ok"], true) << j["check"].dump();

  const CliResult r = RunCli("run Softmax --shape 4,33 --dtype float32 --attr dim=0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Softmax: attribute dim=0 selects axis 0; only the last axis (-1) is "
                       "supported"),
            std::string::npos)
      << r.err;
  const CliResult odd = RunCli("run SwiGlu --shape 4,33 --dtype float32");
  EXPECT_EQ(odd.exit_code, 1);
  EXPECT_NE(odd.err.find("SwiGlu: x [4, 33] needs an even last dimension"), std::string::npos)
      << odd.err;
}

TEST(RowOpsCliTest, TilingShowsTheElewisePlan) {
  const nlohmann::json j = RunJson("tiling RmsNorm --shape 16384,4096 --dtype bfloat16");
  EXPECT_EQ(j["tiling_key"], 27);
  EXPECT_EQ(j["fields"]["rows"], 16384);
  EXPECT_EQ(j["fields"]["cols"], 4096);
  EXPECT_EQ(j["fields"]["numOperands"], 3);
  EXPECT_EQ(j["fields"]["empty"], false);
}

}  // namespace
