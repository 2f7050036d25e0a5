// The TESSERA_TRACE timeline and the TESSERA_KERNEL_TIMEOUT watchdog.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tessera/device/debug.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"

namespace {

using namespace tessera;

void Busy(uint32_t spins) {
  volatile uint32_t x = 0;
  for (uint32_t i = 0; i < spins * (device::GetBlockIdx() + 1); ++i)
    x = x + 1;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, false);
}

TEST(Trace, OneEventPerBlockOnItsCoreNestedInTheLaunch) {
  const std::string path =
      ::testing::TempDir() + "tessera_trace_" + std::to_string(getpid()) + ".json";
  ASSERT_TRUE(device::SetTraceFile(path).ok());
  auto stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  device::LaunchConfig config{3, device::KernelType::kAiv, "traced"};
  config.bytes_moved = 4096;
  ASSERT_TRUE(device::Launch(config, Busy, *stream, 20000u).ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  // Synchronising brought the file up to date: it parses before tracing stops.
  nlohmann::json j = ReadJson(path);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_TRUE(device::Launch(device::LaunchConfig{1, device::KernelType::kAic, "cube_one"}, Busy,
                             *stream, 10u)
                  .ok());
  ASSERT_TRUE(
      device::Launch(device::LaunchConfig{1, device::KernelType::kMix, "mixed"}, Busy, *stream, 10u)
          .ok());
  ASSERT_TRUE(stream->Synchronize().ok());
  ASSERT_TRUE(device::SetTraceFile("").ok());
  j = ReadJson(path);
  std::remove(path.c_str());
  ASSERT_FALSE(j.is_discarded());

  std::map<std::pair<int, int64_t>, std::string> thread_names;
  const auto lane = [&](const nlohmann::json& e) -> std::string& {
    return thread_names[std::make_pair(e["pid"].get<int>(), e["tid"].get<int64_t>())];
  };
  const nlohmann::json* launch = nullptr;
  std::vector<nlohmann::json> blocks, cube_blocks;
  std::multiset<std::string> mix_lanes;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") lane(e) = e["args"]["name"];
    if (e["ph"] != "X") continue;
    if (e["cat"] == "launch" && e["name"] == "traced") launch = &e;
    if (e["cat"] == "block" && e["name"] == "traced") blocks.push_back(e);
    if (e["cat"] == "block" && e["name"] == "cube_one") cube_blocks.push_back(e);
    if (e["cat"] == "block" && e["name"] == "mixed") mix_lanes.insert(lane(e));
  }
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ((*launch)["args"]["blockDim"], 3);
  EXPECT_EQ((*launch)["args"]["type"], "AIV");
  EXPECT_EQ((*launch)["args"]["bytes"], 4096);
  EXPECT_EQ(lane(*launch), "stream " + std::to_string((*launch)["tid"].get<int64_t>()));
  ASSERT_EQ(blocks.size(), 3u);
  const double ts = (*launch)["ts"], end = ts + (*launch)["dur"].get<double>();
  std::set<std::string> cores;
  for (const auto& b : blocks) {
    EXPECT_EQ(b["args"]["launch"], (*launch)["args"]["launch"]);
    cores.insert(lane(b));
    EXPECT_GE(b["ts"].get<double>(), ts - 0.002);
    EXPECT_LE(b["ts"].get<double>() + b["dur"].get<double>(), end + 0.002);
    EXPECT_GT(b["dur"].get<double>(), 0.0);
  }
  EXPECT_EQ(cores, (std::set<std::string>{"AIV 0", "AIV 1", "AIV 2"}));
  ASSERT_EQ(cube_blocks.size(), 1u);
  EXPECT_EQ(lane(cube_blocks[0]), "AIC 0");
  // A MIX group: its AIC and its task_ration AIVs, each on its own lane.
  const uint32_t ration = device::CurrentArch().task_ration;
  std::multiset<std::string> expected_mix{"AIC 0"};
  for (uint32_t v = 0; v < ration; ++v)
    expected_mix.insert("AIV " + std::to_string(v));
  EXPECT_EQ(mix_lanes, expected_mix);
  EXPECT_EQ(j["otherData"]["dropped_events"], 0);
}

std::atomic<bool> g_release{false};

// Block 0 waits on cross-core flag 3, which nobody sets; block 1 runs (so it is no deadlock) until
// released or 20 s pass.
void StuckOnFlag() {
  if (device::GetBlockIdx() == 0) {
    device::CrossCoreWaitFlag(device::CrossCoreMode::kAllCores, 3);
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!g_release.load() && std::chrono::steady_clock::now() < deadline) {
  }
}

TEST(Watchdog, ReportsABlockStuckOnAFlagAndFailsTheLaunch) {
  device::SetKernelTimeout(0.2);
  auto stream = device::Stream::Create();
  ASSERT_TRUE(stream.ok());
  g_release = false;
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(device::Launch(device::LaunchConfig{2, device::KernelType::kAiv, "stuck"},
                             StuckOnFlag, *stream)
                  .ok());
  // Block 1 cannot be interrupted: release it well after the 0.2 s timeout fired. Were there
  // no watchdog, block 0 would then be reported as deadlocked instead.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  g_release = true;
  const Status st = stream->Synchronize();
  const std::string err = ::testing::internal::GetCapturedStderr();
  device::SetKernelTimeout(0);
  EXPECT_EQ(st.code(), StatusCode::kKernelError);
  EXPECT_NE(st.message().find("kernel 'stuck' (AIV, blockDim 2) still running after"),
            std::string::npos)
      << st.ToString();
  EXPECT_NE(st.message().find("block 0 AIV waiting in CrossCoreWaitFlag(mode 0) flag 3"),
            std::string::npos)
      << st.ToString();
  EXPECT_NE(st.message().find("block 1 AIV running"), std::string::npos) << st.ToString();
  EXPECT_NE(err.find("tessera watchdog: kernel 'stuck'"), std::string::npos) << err;
  EXPECT_NE(err.find("block 0 AIV: waiting in CrossCoreWaitFlag(mode 0) flag 3 (count 0, needs 1)"),
            std::string::npos)
      << err;
}

}  // namespace
