// `tessera bench`: the elewise benchmark cases of bench/elewise/cases on the native profile,
// each against its limit loop, the Eigen peer and (for the elementwise ones) torch in the same
// run, plus the 1K Add two-stage call against torch.add, as a table or JSON; with --gemm the GEMM
// cases of bench/gemm/cases (peaks, Mmad, MatMul against OpenBLAS and Eigen).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_torch.h"
#include "cases.h"
#include "commands.h"
#include "gemm_cases.h"
#include "tessera/device/device.h"
#if TESSERA_BENCH_HAVE_BUILTIN_OPS
#include "builtin_nn.h"  // the built-in package's generated op API (tsrAdd, ...)
#endif

namespace tessera::cli {
namespace {

// --quick: tiny sizes and few rounds, to check that every case runs (tests, smoke runs).
constexpr double kQuickScale = 1.0 / 1024;
constexpr int kQuickRounds = 3;

// The --gemm options (only `tessera bench` reads them).
struct GemmFlags {
  bool gemm = false;
  std::string openblas_coretype;
  bool wall_clock = false;
};
GemmFlags gemm_flags;

int RunGemmBench(const BenchOptions& options) {
  bench::gemm::SuiteOptions suite;
  suite.rounds = options.rounds > 0 ? options.rounds : options.quick ? 1 : suite.rounds;
  suite.quick = options.quick;
  suite.filter = options.filter;
  suite.openblas_coretype = gemm_flags.openblas_coretype;
  suite.wall_clock = gemm_flags.wall_clock;
  Result<std::vector<bench::gemm::Row>> rows = bench::gemm::RunSuite(suite);
  if (!rows.ok()) {
    std::fprintf(stderr, "tessera bench --gemm: %s\n", rows.status().ToString().c_str());
    return 1;
  }
  if (!options.json) {
    bench::gemm::PrintTable(*rows, suite);
    return 0;
  }
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const bench::gemm::Row& r : *rows) {
    nlohmann::ordered_json ratios = nlohmann::ordered_json::object();
    for (const auto& [label, value] : r.ratios)
      ratios[label] = value;
    cases.push_back({{"id", r.id},
                     {"title", r.title},
                     {"dtype", r.dtype},
                     {"m", r.m},
                     {"n", r.n},
                     {"k", r.k},
                     {"threads", r.threads},
                     {"gflops", r.gflops},
                     {"ratios", ratios},
                     {"note", r.note}});
  }
  const nlohmann::ordered_json j = {{"worker_threads", device::WorkerThreads()},
                                    {"rounds", suite.rounds},
                                    {"time", suite.wall_clock ? "wall" : "cpu/threads"},
                                    {"cases", cases}};
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}

// The torch peer of one case, measured right after the case in the same process.
struct TorchColumn {
  std::optional<double> gbps;
  std::optional<double> ratio;  // torch time / tessera time (> 1 = tessera faster)
};

TorchColumn MeasureTorch(const bench::Case& c, const bench::CaseResult& r, int rounds) {
  TorchColumn col;
  const std::string op = TorchOpForCase(c.id());
  if (op.empty() || r.gbps <= 0) return col;
  std::string why;
  const std::optional<double> seconds = TorchSeconds(
      op, c.elements(), static_cast<int>(device::WorkerThreads()), rounds, false, &why);
  if (!seconds) return col;
  col.gbps = r.bytes / *seconds * 1e-9;
  col.ratio = *seconds / (r.bytes / (r.gbps * 1e9));
  return col;
}

// The whole two-stage call of the built-in Add on 1024 fp32 elements (GetWorkspaceSize, Add,
// synchronize on the default stream) against torch.add_out on the same size, in thread CPU time.
struct CallResult {
  bool ran = false;
  std::string error;
  double tessera_us = 0;
  std::optional<double> torch_us;
  std::optional<double> ratio_torch;
};

constexpr const char* kCallId = "call_add_1k";

#if TESSERA_BENCH_HAVE_BUILTIN_OPS
// The calling thread's CPU seconds: a 1K call runs on the calling thread only (tessera's launch
// inline, torch's below its parallel grain), and on a loaded machine wall time mostly measures
// other processes.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

CallResult MeasureAddCall(int rounds) {
  CallResult out;
  constexpr int64_t kElements = 1024;
  void* dev[3] = {};
  tsrTensor* t[3] = {};
  for (int i = 0; i < 3; ++i) {
    tsrMalloc(&dev[i], kElements * 4);
    tsrMemset(dev[i], kElements * 4, 0, kElements * 4);
    t[i] = tsrCreateTensor(&kElements, 1, nullptr, TSR_FLOAT, TSR_FORMAT_ND, dev[i]);
  }
  const auto call = [&] {
    uint64_t ws = 0;
    tsrOpExecutor* exec = nullptr;
    return tsrAddGetWorkspaceSize(t[0], t[1], t[2], &ws, &exec) == TSR_SUCCESS &&
           tsrAdd(nullptr, 0, exec, nullptr) == TSR_SUCCESS &&
           tsrSynchronizeStream(nullptr) == TSR_SUCCESS;
  };
  constexpr int kCallsPerRound = 2000;
  std::vector<double> times;
  bool ok = call();  // warm-up: the cache miss
  for (int r = 0; ok && r <= rounds; ++r) {
    const double start = ThreadCpuSeconds();
    for (int i = 0; ok && i < kCallsPerRound; ++i)
      ok = call();
    if (r > 0) times.push_back((ThreadCpuSeconds() - start) / kCallsPerRound);
  }
  if (!ok) out.error = tsrGetLastErrorMessage();
  for (int i = 0; i < 3; ++i) {
    tsrDestroyTensor(t[i]);
    tsrFree(dev[i]);
  }
  if (!ok) return out;
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  out.ran = true;
  out.tessera_us = times[times.size() / 2] * 1e6;
  std::string why;
  if (const std::optional<double> s = TorchSeconds(
          "add", kElements, static_cast<int>(device::WorkerThreads()), rounds, true, &why)) {
    out.torch_us = *s * 1e6;
    out.ratio_torch = *out.torch_us / out.tessera_us;
  }
  return out;
}
#else
CallResult MeasureAddCall(int) {
  CallResult out;
  out.error = "the built-in package is not built";
  return out;
}
#endif

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s;
  for (int64_t d : shape) {
    if (!s.empty()) s += 'x';
    s += std::to_string(d);
  }
  return s;
}

nlohmann::ordered_json Optional(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json ResultJson(const bench::CaseResult& r, const TorchColumn& torch) {
  return {
      {"id", r.id},
      {"title", r.title},
      {"shape", r.shape},
      {"dtype", r.dtype},
      {"bytes", r.bytes},
      {"rounds", r.rounds},
      {"gbps", r.gbps},
      {"limit_gbps", r.limit_gbps},
      {"ratio_limit", r.ratio_limit},
      {"eigen_gbps", Optional(r.eigen_gbps)},
      {"ratio_eigen", Optional(r.ratio_eigen)},
      {"torch_gbps", Optional(torch.gbps)},
      {"ratio_torch", Optional(torch.ratio)},
      {"compute_bound", r.compute_bound},
      {"ceiling_gbps", Optional(r.ceiling_gbps)},
      {"ceiling_gelems_per_s", Optional(r.ceiling_gelems)},
      {"ascend910b_over_native", Optional(r.ratio_emulated)},
  };
}

void PrintTable(const std::vector<bench::CaseResult>& results,
                const std::vector<TorchColumn>& torch, const std::optional<CallResult>& call,
                int rounds, double scale) {
  std::printf("tessera bench: profile %s, %u worker threads, %d interleaved rounds, medians\n",
              device::CurrentArch().name.c_str(), device::WorkerThreads(), rounds);
  if (scale != 1.0) std::printf("sizes scaled by %g\n", scale);
  if (!bench::EigenAvailable()) {
    std::printf("Eigen peer not available: %s; reporting the limit ratio only\n",
                bench::EigenUnavailableReason().c_str());
  }
  if (TorchPeer() == nullptr) {
    std::printf("torch peer not available: %s\n", TorchPeerUnavailableReason().c_str());
  }
  std::printf("%-28s %8s %8s %8s %8s %8s %8s %8s %14s %8s\n", "case", "GB/s", "limit", "x limit",
              "Eigen", "x Eigen", "torch", "x torch", "in-cache GB/s", "910b/nat");
  for (size_t i = 0; i < results.size(); ++i) {
    const bench::CaseResult& r = results[i];
    std::string name = r.title;
    name.append(" ").append(ShapeText(r.shape));
    std::printf("%-28s %8.1f %8.1f %8.2f", name.c_str(), r.gbps, r.limit_gbps, r.ratio_limit);
    if (r.eigen_gbps) {
      std::printf(" %8.1f %8.2f", *r.eigen_gbps, *r.ratio_eigen);
    } else {
      std::printf(" %8s %8s", "-", "-");
    }
    if (torch[i].gbps) {
      std::printf(" %8.1f %8.2f", *torch[i].gbps, *torch[i].ratio);
    } else {
      std::printf(" %8s %8s", "-", "-");
    }
    if (r.ceiling_gbps) {
      std::printf(" %13.1f%s", *r.ceiling_gbps, r.compute_bound ? "*" : " ");
    } else {
      std::printf(" %14s", "-");
    }
    if (r.ratio_emulated) {
      std::printf(" %8.2f", *r.ratio_emulated);
    } else {
      std::printf(" %8s", "-");
    }
    std::printf("\n");
  }
  bool any_ceiling = false;
  for (const bench::CaseResult& r : results)
    any_ceiling = any_ceiling || r.ceiling_gbps.has_value();
  std::printf(
      "GB/s: every input read once + every output written once, per second. limit: a SIMD loop "
      "with the same streams\nand streaming stores; x limit / x Eigen: medians of per-round time "
      "ratios (> 1 = tessera faster);\ntorch: libtorch with as many threads, measured right "
      "after the case; x torch = its median time / tessera's.\n");
  if (any_ceiling) {
    std::printf(
        "in-cache: the same operator on a cache-resident slice (the workers' L2 + half the L3, at "
        "most 1M elements),\nits compute ceiling; * = "
        "below the limit\n(compute-bound: compare GB/s with the ceiling rather than the limit).\n");
  }
  std::printf(
      "910b/nat: median of the operator's time on the emulated ascend910b profile over its native "
      "time, same round (goal <= 1.1).\n");
  if (!call) return;
  if (!call->ran) {
    std::printf("1K Add call: %s\n", call->error.c_str());
    return;
  }
  std::printf("1K Add call (GetWorkspaceSize + Add + synchronize, fp32 1024), CPU time: %.3f us",
              call->tessera_us);
  if (call->torch_us) {
    std::printf("; torch.add %.3f us; x torch %.2f", *call->torch_us, *call->ratio_torch);
  }
  std::printf("\n");
}

}  // namespace

void AddBenchCommand(CLI::App& app, BenchOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Benchmark the elewise operators against a bandwidth limit loop, Eigen and torch");
  cmd->add_flag("--json", options.json, "Print JSON");
  cmd->add_flag("--quick", options.quick,
                "Tiny sizes (1/1024 of the issue's) and 3 rounds: checks that every case runs");
  cmd->add_option("--rounds", options.rounds, "Interleaved rounds per case (default 15)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scale", options.scale, "Multiply every case's size (default 1, at most 64)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--filter", options.filter,
                  "Run the cases whose id contains this text (ids: fma_f32 sigmoid_f32 gelu_f32 "
                  "rmsnorm_f32 rmsnorm_bf16 softmax_f32 op_add_f32 ... call_add_1k)");
  cmd->add_flag("--gemm", gemm_flags.gemm,
                "Run the GEMM cases instead (FMA/bf16 peaks, Mmad, MatMul vs OpenBLAS/Eigen, "
                "ascend910b vs native; --filter matches their ids, e.g. matmul_f32_2048)");
  cmd->add_option("--openblas-coretype", gemm_flags.openblas_coretype,
                  "With --gemm: OPENBLAS_CORETYPE for the OpenBLAS peer (default: unset, so "
                  "OpenBLAS detects the CPU)");
  cmd->add_flag("--wall-clock", gemm_flags.wall_clock,
                "With --gemm: time by the wall clock instead of CPU seconds / threads");
  cmd->add_flag("--no-ceiling", options.no_ceiling,
                "Skip the in-cache measurement (the operators' compute ceiling)");
  cmd->add_flag("--no-910b", options.no_emulated,
                "Skip the operators' runs on the emulated ascend910b profile");
}

int RunBench(const BenchOptions& options) {
  if (device::CurrentArch().name != "native") {
    // The cases are about this CPU's throughput; an emulated NPU profile only adds overhead.
    if (Status st = device::SetProfile("native"); !st.ok()) {
      std::fprintf(stderr, "tessera bench: %s\n", st.ToString().c_str());
      return 1;
    }
  }
  if (gemm_flags.gemm) return RunGemmBench(options);
  bench::SuiteOptions suite;
  // 0 = not given on the command line.
  suite.scale = options.scale > 0 ? options.scale : options.quick ? kQuickScale : 1.0;
  suite.rounds = options.rounds > 0 ? options.rounds : options.quick ? kQuickRounds : suite.rounds;
  suite.filter = options.filter;
  suite.ceiling = !options.no_ceiling;
  suite.emulated = !options.no_emulated;
  // Case by case (as bench::RunSuite), each followed by its torch peer.
  std::vector<std::string> ids;
  for (const std::string& id : bench::CaseIds()) {
    if (id.find(options.filter) != std::string::npos) ids.push_back(id);
  }
  const bool with_call = std::string(kCallId).find(options.filter) != std::string::npos;
  if (ids.empty() && !with_call) {
    std::string known;
    for (const std::string& k : bench::CaseIds())
      known.append(known.empty() ? "" : ", ").append(k);
    std::fprintf(stderr, "tessera bench: filter '%s' matches no case; cases are %s, %s\n",
                 options.filter.c_str(), known.c_str(), kCallId);
    return 1;
  }
  const device::Stream stream;
  std::vector<bench::CaseResult> results;
  std::vector<TorchColumn> torch;
  for (const std::string& id : ids) {
    Result<std::unique_ptr<bench::Case>> c = bench::MakeCase(id, suite.scale);
    Result<bench::CaseResult> r =
        c.ok() ? bench::Measure(**c, suite, stream) : Result<bench::CaseResult>(c.status());
    if (!r.ok()) {
      std::fprintf(stderr, "tessera bench: %s\n", r.status().ToString().c_str());
      return 1;
    }
    torch.push_back(MeasureTorch(**c, *r, suite.rounds));
    results.push_back(std::move(*r));
  }
  std::optional<CallResult> call;
  if (with_call) call = MeasureAddCall(suite.rounds);
  if (!options.json) {
    PrintTable(results, torch, call, suite.rounds, suite.scale);
    return 0;
  }
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i)
    cases.push_back(ResultJson(results[i], torch[i]));
  nlohmann::ordered_json calls = nlohmann::ordered_json::array();
  if (call && call->ran) {
    calls.push_back({{"id", kCallId},
                     {"title", "Add fp32 1024, GetWorkspaceSize + Add + synchronize"},
                     {"us", call->tessera_us},
                     {"torch_us", Optional(call->torch_us)},
                     {"ratio_torch", Optional(call->ratio_torch)}});
  }
  const nlohmann::ordered_json j = {
      {"profile", device::CurrentArch().name},
      {"worker_threads", device::WorkerThreads()},
      {"checked_mode", device::CheckedMode()},
      {"rounds", suite.rounds},
      {"scale", suite.scale},
      {"eigen",
       {{"available", bench::EigenAvailable()}, {"reason", bench::EigenUnavailableReason()}}},
      {"torch", {{"available", TorchPeer() != nullptr}, {"reason", TorchPeerUnavailableReason()}}},
      {"cases", cases},
      {"calls", calls},
  };
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}

}  // namespace tessera::cli
