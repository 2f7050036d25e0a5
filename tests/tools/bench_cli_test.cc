// `tessera bench` as a user runs it, on tiny sizes (--quick): every case is reported with positive
// figures, --filter selects, the table has its columns, and bad options fail with a message.
// No timing assertions: the machine's speed is not under test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cli_runner.h"

namespace {

using tessera::cli_test::CliResult;
using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;

void ExpectPositive(const nlohmann::json& c, const char* key) {
  ASSERT_TRUE(c.contains(key)) << c["id"] << " lacks " << key;
  ASSERT_TRUE(c[key].is_number()) << c["id"] << ": " << key << " = " << c[key];
  EXPECT_GT(c[key].get<double>(), 0.0) << c["id"] << ": " << key;
}

TEST(BenchCliTest, QuickJsonReportsEveryCaseWithPositiveFigures) {
  const nlohmann::json j = RunJson("bench --quick");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["profile"], "native");
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_DOUBLE_EQ(j["scale"].get<double>(), 1.0 / 1024);
  const bool eigen = j["eigen"]["available"].get<bool>();
  EXPECT_EQ(eigen, j["eigen"]["reason"].get<std::string>().empty()) << j["eigen"];
  std::set<std::string> ids;
  for (const nlohmann::json& c : j["cases"]) {
    ids.insert(c["id"].get<std::string>());
    ExpectPositive(c, "bytes");
    ExpectPositive(c, "gbps");
    ExpectPositive(c, "limit_gbps");
    ExpectPositive(c, "ratio_limit");
    EXPECT_EQ(c["rounds"], 3);
    if (eigen && c["id"].get<std::string>().rfind("op_", 0) != 0) {  // op_*: no peer
      ExpectPositive(c, "eigen_gbps");
      ExpectPositive(c, "ratio_eigen");
    } else {
      EXPECT_TRUE(c["eigen_gbps"].is_null()) << c["id"];
    }
    ExpectPositive(c, "ceiling_gbps");
    ExpectPositive(c, "ceiling_gelems_per_s");
    ExpectPositive(c, "ascend910b_over_native");
    EXPECT_EQ(c["compute_bound"].get<bool>(),
              c["ceiling_gbps"].get<double>() < c["limit_gbps"].get<double>())
        << c["id"];
  }
  EXPECT_EQ(ids,
            (std::set<std::string>{
                "fma_f32", "sigmoid_f32", "gelu_f32", "rmsnorm_f32", "rmsnorm_bf16", "softmax_f32",
                "op_add_f32", "op_mul_f32", "op_sigmoid_f32", "op_cast_f32_bf16", "op_rmsnorm_f32",
                "op_rmsnorm_bf16", "op_layernorm_f32", "op_layernorm_bf16", "op_softmax_f32",
                "op_softmax_bf16", "op_swiglu_f32", "op_swiglu_bf16"}));
}

TEST(BenchCliTest, SizesFollowTheScaleAndBytesTheStreams) {
  const nlohmann::json j = RunJson("bench --quick --filter fma");
  ASSERT_EQ(j["cases"].size(), 1u);
  const nlohmann::json& fma = j["cases"][0];
  EXPECT_EQ(fma["shape"], nlohmann::json::array({65536}));     // 64M / 1024
  EXPECT_DOUBLE_EQ(fma["bytes"].get<double>(), 16.0 * 65536);  // 3 reads + 1 write of fp32

  // The elewise template cases and the RMSNorm operator cases, fp32 and bf16 each.
  const nlohmann::json rows = RunJson("bench --scale 0.001 --rounds 2 --filter rmsnorm");
  ASSERT_EQ(rows["cases"].size(), 4u);
  bool saw_bf16 = false;
  for (const nlohmann::json& c : rows["cases"]) {
    EXPECT_EQ(c["shape"], nlohmann::json::array({16, 4096})) << c["id"];  // round(16384 * 0.001)
    EXPECT_EQ(c["rounds"], 2);
    if (c["id"] == "rmsnorm_bf16") {
      saw_bf16 = true;
      EXPECT_EQ(c["dtype"], "bfloat16");
      EXPECT_DOUBLE_EQ(c["bytes"].get<double>(), 4.0 * 16 * 4096);
    }
  }
  EXPECT_TRUE(saw_bf16);
}

TEST(BenchCliTest, NoCeilingSkipsTheInCacheMeasurement) {
  const nlohmann::json j = RunJson("bench --quick --no-ceiling --filter gelu");
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_TRUE(j["cases"][0]["ceiling_gbps"].is_null());
  EXPECT_FALSE(j["cases"][0]["compute_bound"].get<bool>());
  ExpectPositive(j["cases"][0], "gbps");

  const nlohmann::json native = RunJson("bench --quick --no-910b --filter op_add");
  ASSERT_EQ(native["cases"].size(), 1u);
  EXPECT_TRUE(native["cases"][0]["ascend910b_over_native"].is_null());
  EXPECT_EQ(native["profile"], "native");
}

TEST(BenchCliTest, TableHasTheReportColumns) {
  const CliResult r = RunCli("bench --quick --filter softmax");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text :
       {"GB/s", "x limit", "x Eigen", "910b/nat", "Softmax fp32 16x4096", "rounds"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(BenchCliTest, RunsInCheckedMode) {
  const nlohmann::json j =
      RunJson("bench --quick --rounds 1 --filter rmsnorm_bf16", "TESSERA_CHECK=1");
  ASSERT_EQ(j["cases"].size(), 2u);  // the template case and the operator case
  EXPECT_TRUE(j["checked_mode"].get<bool>());
  for (const nlohmann::json& c : j["cases"])
    ExpectPositive(c, "gbps");
}

TEST(BenchCliTest, BadOptionsFailWithAMessage) {
  const CliResult none = RunCli("bench --quick --filter nosuchcase");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("filter 'nosuchcase' matches no case"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("rmsnorm_bf16"), std::string::npos) << none.err;

  const CliResult tiny = RunCli("bench --scale 1e-9 --filter softmax");
  EXPECT_EQ(tiny.exit_code, 1);
  EXPECT_NE(tiny.err.find("leaves case softmax_f32 with no work"), std::string::npos) << tiny.err;

  const CliResult huge = RunCli("bench --scale 100 --filter softmax");
  EXPECT_EQ(huge.exit_code, 1);
  EXPECT_NE(huge.err.find("is above 64"), std::string::npos) << huge.err;

  const CliResult rounds = RunCli("bench --rounds 0");
  EXPECT_NE(rounds.exit_code, 0);
  EXPECT_NE(rounds.err.find("--rounds"), std::string::npos) << rounds.err;
}

}  // namespace
