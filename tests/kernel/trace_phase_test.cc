// Pipe phases in TESSERA_TRACE timelines (checked mode): a vector kernel's MTE2 / V / MTE3 and a
// MIX matmul's MTE2 / MTE1 / M / FIX on the AIC and MTE2 / V / MTE3 on its AIVs, each phase on its
// block's core lane and inside the block; consecutive calls on one pipe merged; the per-block phase
// limit; none in fast mode.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../../examples/kernels/kernel_host.h"
#include "../../examples/kernels/matmul_leakyrelu_mix/matmul_leakyrelu_mix_kernel.h"
#include "kernel_test_util.h"
#include "tessera/device/debug.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel {
namespace {

using testing::CheckedScope;
using testing::DeviceBuffer;

constexpr uint32_t kTile = 128;  // floats per UB tile

// z = x + y; each block streams `per_block` elements through UB in tiles of kTile, the last one a
// partial tile moved with DataCopyPad.
void AddKernel(float* x, float* y, float* z, uint32_t per_block) {
  const uint64_t offset = uint64_t{GetBlockIdx()} * per_block;
  GlobalTensor<float> gx, gy, gz;
  gx.SetGlobalBuffer(x + offset, per_block);
  gy.SetGlobalBuffer(y + offset, per_block);
  gz.SetGlobalBuffer(z + offset, per_block);
  TPipe pipe;
  TQue<TPosition::VECIN, 2> in_x, in_y;
  TQue<TPosition::VECOUT, 2> out_z;
  pipe.InitBuffer(in_x, 2, kTile * sizeof(float));
  pipe.InitBuffer(in_y, 2, kTile * sizeof(float));
  pipe.InitBuffer(out_z, 2, kTile * sizeof(float));
  for (uint32_t done = 0; done < per_block; done += kTile) {
    const uint32_t len = std::min(kTile, per_block - done);
    const DataCopyExtParams bytes{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
    LocalTensor<float> a = in_x.AllocTensor<float>();
    LocalTensor<float> b = in_y.AllocTensor<float>();
    if (len == kTile) {
      DataCopy(a, gx[done], len);
      DataCopy(b, gy[done], len);
    } else {
      DataCopyPad(a, gx[done], bytes, DataCopyPadExtParams<float>{});
      DataCopyPad(b, gy[done], bytes, DataCopyPadExtParams<float>{});
    }
    in_x.EnQue(a);
    in_y.EnQue(b);
    a = in_x.DeQue<float>();
    b = in_y.DeQue<float>();
    LocalTensor<float> c = out_z.AllocTensor<float>();
    Add(c, a, b, static_cast<int32_t>(len));
    in_x.FreeTensor(a);
    in_y.FreeTensor(b);
    out_z.EnQue(c);
    c = out_z.DeQue<float>();
    if (len == kTile) {
      DataCopy(gz[done], c, len);
    } else {
      DataCopyPad(gz[done], c, bytes);
    }
    out_z.FreeTensor(c);
  }
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> v(n);
  for (float& e : v)
    e = dist(rng);
  return v;
}

// Runs AddKernel on `blocks` AIV blocks of `per_block` elements and checks z against x + y.
void RunAdd(uint32_t blocks, uint32_t per_block) {
  const size_t n = size_t{blocks} * per_block;
  const std::vector<float> x = RandomFloats(n, 7), y = RandomFloats(n, 8);
  DeviceBuffer<float> dx(x), dy(y), dz(n);
  const Status st =
      testing::RunKernel("traced_add", blocks, AddKernel, dx.get(), dy.get(), dz.get(), per_block);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<float> z = dz.ToHost();
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(z[i], x[i] + y[i]) << i;
}

// Traces what `run` launches into a fresh file and returns the parsed file.
template <class Run>
nlohmann::json Traced(const std::string& name, Run run) {
  const std::string path =
      ::testing::TempDir() + "tessera_phase_" + name + "_" + std::to_string(getpid()) + ".json";
  EXPECT_TRUE(device::SetTraceFile(path).ok());
  run();
  EXPECT_TRUE(device::SetTraceFile("").ok());
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  std::remove(path.c_str());
  EXPECT_FALSE(j.is_discarded());
  return j;
}

struct Block {
  nlohmann::json event;
  std::vector<nlohmann::json> phases;  // in file order
};

// The blocks of kernel `name`, keyed by lane name ("AIV 3"), each with the phases of its lane that
// carry its launch and block index.
std::map<std::string, Block> BlocksOf(const nlohmann::json& trace, const std::string& name) {
  std::map<int64_t, std::string> lanes;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 2)
      lanes[e["tid"].get<int64_t>()] = e["args"]["name"];
  std::map<std::string, Block> blocks;
  std::map<int64_t, std::string> lane_of_tid;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["pid"] != 2) continue;
    const std::string lane = lanes[e["tid"].get<int64_t>()];
    if (e["cat"] == "block" && e["name"] == name) blocks[lane].event = e;
  }
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X" || e["cat"] != "phase") continue;
    auto it = blocks.find(lanes[e["tid"].get<int64_t>()]);
    if (it == blocks.end() || it->second.event["args"]["launch"] != e["args"]["launch"]) continue;
    EXPECT_EQ(e["args"]["block"], it->second.event["args"]["block"]);
    it->second.phases.push_back(e);
  }
  return blocks;
}

std::vector<std::string> Names(const std::vector<nlohmann::json>& phases) {
  std::vector<std::string> out;
  for (const auto& p : phases)
    out.push_back(p["name"]);
  return out;
}

std::vector<uint64_t> Calls(const std::vector<nlohmann::json>& phases) {
  std::vector<uint64_t> out;
  for (const auto& p : phases)
    out.push_back(p["args"]["calls"]);
  return out;
}

// Every phase lies inside its block and after the phase before it (times are whole ns, printed
// exactly as microseconds with 3 decimals).
void ExpectNestedInOrder(const Block& b) {
  const double begin = b.event["ts"], end = begin + b.event["dur"].get<double>();
  double last_end = begin;
  for (const auto& p : b.phases) {
    const double ts = p["ts"], dur = p["dur"];
    EXPECT_GE(ts, last_end - 1e-6) << p.dump();
    EXPECT_GE(dur, 0.0);
    EXPECT_LE(ts + dur, end + 1e-6) << p.dump() << " in " << b.event.dump();
    last_end = ts + dur;
  }
}

TEST(TracePhases, VectorKernelShowsMte2ThenVThenMte3PerTileOnEachBlock) {
  constexpr uint32_t kBlocks = 3, kPerBlock = 2 * kTile + 31;  // two full tiles and a partial one
  CheckedScope checked(true);
  const nlohmann::json trace = Traced("vector", [] { RunAdd(kBlocks, kPerBlock); });
  const auto blocks = BlocksOf(trace, "traced_add");
  ASSERT_EQ(blocks.size(), kBlocks);
  for (uint32_t i = 0; i < kBlocks; ++i) {
    const std::string lane = "AIV " + std::to_string(i);
    ASSERT_EQ(blocks.count(lane), 1u) << lane;
    const Block& b = blocks.at(lane);
    EXPECT_EQ(b.event["args"]["block"], i);
    // Per tile: the two loads merge into one MTE2 phase, then the Add, then the store.
    EXPECT_EQ(Names(b.phases), (std::vector<std::string>{"MTE2", "V", "MTE3", "MTE2", "V", "MTE3",
                                                         "MTE2", "V", "MTE3"}))
        << lane;
    EXPECT_EQ(Calls(b.phases), (std::vector<uint64_t>{2, 1, 1, 2, 1, 1, 2, 1, 1})) << lane;
    ExpectNestedInOrder(b);
    const nlohmann::json& pipes = b.event["args"]["pipe_us"];
    EXPECT_EQ(pipes.size(), 3u) << pipes.dump();
    double sum = 0;
    for (const char* pipe : {"MTE2", "V", "MTE3"}) {
      ASSERT_TRUE(pipes.contains(pipe)) << pipes.dump();
      EXPECT_GT(pipes[pipe].get<double>(), 0.0);
      sum += pipes[pipe].get<double>();
    }
    EXPECT_LE(sum, b.event["dur"].get<double>() + 1e-6);
  }
  EXPECT_EQ(trace["otherData"]["dropped_phases"], 0);
}

TEST(TracePhases, MixMatmulShowsCubePipesOnTheAicAndVectorPipesOnItsAivs) {
  constexpr uint32_t M = 64, K = 32, N = 32, kBaseM = 32, kGroups = M / kBaseM;
  const std::vector<half> a = samples::SmallIntegerHalves(M * K, 21);
  const std::vector<half> b = samples::SmallIntegerHalves(K * N, 22);
  DeviceBuffer<half> da(a), db(b), dc(size_t{M} * N);
  CheckedScope checked(true);
  const nlohmann::json trace = Traced("mix", [&] {
    auto stream = device::Stream::Create();
    ASSERT_TRUE(stream.ok());
    ASSERT_TRUE(
        device::Launch(device::LaunchConfig{kGroups, device::KernelType::kMix, "traced_matmul"},
                       matmul_leakyrelu_mix::MatmulLeakyReluKernel<M, K, N, kBaseM>, *stream,
                       reinterpret_cast<GM_ADDR>(da.get()), reinterpret_cast<GM_ADDR>(db.get()),
                       reinterpret_cast<GM_ADDR>(dc.get()), 0.25f)
            .ok());
    const Status st = stream->Synchronize();
    ASSERT_TRUE(st.ok()) << st.ToString();
  });
  // The result is right (integers: the fp32 accumulation is exact).
  const std::vector<float> acc = samples::MatmulF32(a, b, M, K, N);
  const std::vector<half> c = dc.ToHost();
  for (size_t i = 0; i < c.size(); ++i) {
    const float h = static_cast<float>(half(acc[i]));
    ASSERT_EQ(c[i].bits, (h >= 0 ? half(h) : half(h * 0.25f)).bits) << i;
  }

  const auto blocks = BlocksOf(trace, "traced_matmul");
  const uint32_t ration = device::CurrentArch().task_ration;
  ASSERT_EQ(blocks.size(), kGroups * (1 + ration));
  const uint32_t m1 = kBaseM / 16, k1 = K / 16;
  for (uint32_t g = 0; g < kGroups; ++g) {
    const Block& cube = blocks.at("AIC " + std::to_string(g));
    EXPECT_EQ(cube.event["args"]["block"], g);
    // A and B GM -> L1 (Nd2Nz), their fractal rows L1 -> L0A/L0B, one Mmad, one Fixpipe.
    EXPECT_EQ(Names(cube.phases), (std::vector<std::string>{"MTE2", "MTE1", "M", "FIX"}));
    EXPECT_EQ(Calls(cube.phases), (std::vector<uint64_t>{2, m1 + k1, 1, 1}));
    ExpectNestedInOrder(cube);
    EXPECT_EQ(cube.event["args"]["pipe_us"].size(), 4u) << cube.event.dump();
    EXPECT_FALSE(cube.event["args"]["pipe_us"].contains("V"));
    for (uint32_t v = 0; v < ration; ++v) {
      const uint32_t idx = g * ration + v;
      const Block& vec = blocks.at("AIV " + std::to_string(idx));
      EXPECT_EQ(vec.event["args"]["block"], idx);
      EXPECT_EQ(Names(vec.phases), (std::vector<std::string>{"MTE2", "V", "MTE3"}));
      ExpectNestedInOrder(vec);
      // The AIV waits for its AIC's tile before its first phase.
      EXPECT_GE(
          vec.phases.front()["ts"].get<double>(),
          cube.phases.back()["ts"].get<double>() + cube.phases.back()["dur"].get<double>() - 1e-6);
    }
  }
}

TEST(TracePhases, FastModeRecordsNoPhases) {
  CheckedScope checked(false);
  const nlohmann::json trace = Traced("fast", [] { RunAdd(2, kTile + 5); });
  const auto blocks = BlocksOf(trace, "traced_add");
  ASSERT_EQ(blocks.size(), 2u);
  for (const auto& [lane, b] : blocks) {
    EXPECT_TRUE(b.phases.empty()) << lane;
    EXPECT_FALSE(b.event["args"].contains("pipe_us")) << b.event.dump();
  }
  for (const auto& e : trace["traceEvents"])
    EXPECT_NE(e.value("cat", ""), "phase") << e.dump();
}

TEST(TracePhases, PhasesBeyondThePerBlockLimitAreCountedAndPipeTimesStayComplete) {
  ASSERT_EQ(setenv("TESSERA_TRACE_PHASE_LIMIT", "4", 1), 0);
  CheckedScope checked(true);
  const nlohmann::json trace = Traced("limit", [] { RunAdd(2, 3 * kTile); });
  ASSERT_EQ(unsetenv("TESSERA_TRACE_PHASE_LIMIT"), 0);
  const auto blocks = BlocksOf(trace, "traced_add");
  ASSERT_EQ(blocks.size(), 2u);
  for (const auto& [lane, b] : blocks) {
    // 9 phases (3 tiles x MTE2, V, MTE3): the first 4 kept, 5 counted.
    EXPECT_EQ(Names(b.phases), (std::vector<std::string>{"MTE2", "V", "MTE3", "MTE2"})) << lane;
    EXPECT_EQ(b.event["args"]["phases_dropped"], 5) << b.event.dump();
    EXPECT_EQ(b.event["args"]["pipe_us"].size(), 3u);
    // The kept MTE3 phase holds one of the three stores; the block's MTE3 time counts all three.
    EXPECT_GT(b.event["args"]["pipe_us"]["MTE3"].get<double>(), b.phases[2]["dur"].get<double>());
  }
  EXPECT_EQ(trace["otherData"]["dropped_phases"], 10);
  EXPECT_EQ(trace["otherData"]["phase_limit"], 4);
}

}  // namespace
}  // namespace tessera::kernel
