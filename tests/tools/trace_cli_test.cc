// `tessera trace summary` and `tessera trace svg` on a trace written by a real `tessera run`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.h"

namespace {

using tessera::cli_test::RunCli;
using tessera::cli_test::RunJson;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "tessera_" + std::to_string(getpid()) + "_" + name;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
    ++n;
  return n;
}

TEST(TraceCli, SummaryAndSvgOfARealRun) {
  const std::string trace = TempPath("run_trace.json");
  const auto run = RunCli("run Add --shape 65536 --shape 65536 --dtype float32 --iters 3",
                          "TESSERA_TRACE=" + trace);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const nlohmann::json s = RunJson("trace summary " + trace);
  ASSERT_TRUE(s["kernels"].is_array());
  const nlohmann::json* add = nullptr;
  for (const auto& k : s["kernels"])
    if (k["name"] == "add") add = &k;
  ASSERT_NE(add, nullptr) << s.dump(2);
  EXPECT_GE((*add)["calls"].get<int>(), 3);  // the reference check and the timed iterations
  EXPECT_GT((*add)["total_us"].get<double>(), 0.0);
  EXPECT_GE((*add)["block_balance"].get<double>(), 1.0);
  // The runtime records the bytes its launches move: 3 tensors of 65536 floats per call.
  EXPECT_EQ((*add)["bytes"].get<uint64_t>() % (3 * 65536 * 4), 0u);
  EXPECT_GT((*add)["gb_per_s"].get<double>(), 0.0);

  const auto text = RunCli("trace summary " + trace);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("kernel"), std::string::npos);
  EXPECT_NE(text.out.find("add "), std::string::npos) << text.out;

  const std::string svg = TempPath("run_trace.svg");
  const auto drawn = RunCli("trace svg " + trace + " -o " + svg);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(Count(ss.str(), "<rect "), s["blocks"].get<size_t>());
  EXPECT_GT(s["blocks"].get<size_t>(), 0u);
  EXPECT_NE(ss.str().find(">AIV 0<"), std::string::npos);
  std::remove(trace.c_str());
  std::remove(svg.c_str());
}

TEST(TraceCli, CheckedRunShowsPipeTimePerKernelAndPhaseRows) {
  const std::string trace = TempPath("checked_trace.json");
  const auto run = RunCli("run Add --shape 4097 --shape 4097 --dtype float32 --iters 2",
                          "TESSERA_CHECK=1 TESSERA_TRACE=" + trace);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const nlohmann::json s = RunJson("trace summary " + trace);
  const nlohmann::json* add = nullptr;
  for (const auto& k : s["kernels"])
    if (k["name"] == "add") add = &k;
  ASSERT_NE(add, nullptr) << s.dump(2);
  ASSERT_TRUE(add->contains("pipes")) << add->dump(2);
  const nlohmann::json& pipes = (*add)["pipes"];
  double share = 0;
  for (const char* pipe : {"MTE2", "V", "MTE3"}) {
    ASSERT_TRUE(pipes.contains(pipe)) << pipes.dump(2);
    EXPECT_GT(pipes[pipe]["us"].get<double>(), 0.0);
    share += pipes[pipe]["share"].get<double>();
  }
  EXPECT_EQ(pipes.size(), 3u) << pipes.dump(2);  // a vector op: no cube pipe
  EXPECT_LE(share, 1.0 + 1e-9);
  EXPECT_GT(s["phases"].get<size_t>(), s["blocks"].get<size_t>());
  EXPECT_EQ(s["dropped_phases"], 0);

  const auto text = RunCli("trace summary " + trace);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("pipe time (checked mode)"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(" FIX"), std::string::npos) << text.out;  // only pipes in use

  const std::string svg = TempPath("checked_trace.svg");
  const auto drawn = RunCli("trace svg " + trace + " -o " + svg);
  ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(Count(ss.str(), "<rect class=\"block\""), s["blocks"].get<size_t>());
  EXPECT_EQ(Count(ss.str(), "<rect class=\"phase\""), s["phases"].get<size_t>());
  EXPECT_NE(ss.str().find(">MTE2</text>"), std::string::npos);  // the legend
  std::remove(trace.c_str());
  std::remove(svg.c_str());
}

TEST(TraceCli, RejectsAFileThatIsNotATrace) {
  const std::string bad = TempPath("not_a_trace.json");
  std::ofstream(bad) << "{\"x\": 1}";
  const auto r = RunCli("trace summary " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tessera trace: " + bad + ": not a trace file"), std::string::npos) << r.err;
  std::remove(bad.c_str());
}

}  // namespace
