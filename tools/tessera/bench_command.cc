// `tessera bench`: the elewise benchmark cases of bench/elewise/cases on the native profile,
// each against its limit loop and the Eigen peer in the same run, as a table or JSON; with
// --gemm the GEMM cases of bench/gemm/cases (peaks, Mmad, MatMul against OpenBLAS and Eigen).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cases.h"
#include "commands.h"
#include "gemm_cases.h"
#include "tessera/device/device.h"

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

nlohmann::ordered_json ResultJson(const bench::CaseResult& r) {
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
      {"compute_bound", r.compute_bound},
      {"ceiling_gbps", Optional(r.ceiling_gbps)},
      {"ceiling_gelems_per_s", Optional(r.ceiling_gelems)},
  };
}

void PrintTable(const std::vector<bench::CaseResult>& results, int rounds, double scale) {
  std::printf("tessera bench: profile %s, %u worker threads, %d interleaved rounds, medians\n",
              device::CurrentArch().name.c_str(), device::WorkerThreads(), rounds);
  if (scale != 1.0) std::printf("sizes scaled by %g\n", scale);
  if (!bench::EigenAvailable()) {
    std::printf("Eigen peer not available: %s; reporting the limit ratio only\n",
                bench::EigenUnavailableReason().c_str());
  }
  std::printf("%-28s %8s %8s %8s %8s %8s %14s\n", "case", "GB/s", "limit", "x limit", "Eigen",
              "x Eigen", "in-cache GB/s");
  for (const bench::CaseResult& r : results) {
    std::string name = r.title;
    name.append(" ").append(ShapeText(r.shape));
    std::printf("%-28s %8.1f %8.1f %8.2f", name.c_str(), r.gbps, r.limit_gbps, r.ratio_limit);
    if (r.eigen_gbps) {
      std::printf(" %8.1f %8.2f", *r.eigen_gbps, *r.ratio_eigen);
    } else {
      std::printf(" %8s %8s", "-", "-");
    }
    if (r.ceiling_gbps) {
      std::printf(" %13.1f%s", *r.ceiling_gbps, r.compute_bound ? "*" : " ");
    } else {
      std::printf(" %14s", "-");
    }
    std::printf("\n");
  }
  bool any_ceiling = false;
  for (const bench::CaseResult& r : results)
    any_ceiling = any_ceiling || r.ceiling_gbps.has_value();
  std::printf(
      "GB/s: every input read once + every output written once, per second. limit: a SIMD loop "
      "with the same streams\nand streaming stores; x limit / x Eigen: medians of per-round time "
      "ratios (> 1 = tessera faster).\n");
  if (any_ceiling) {
    std::printf(
        "in-cache: the same operator on ~1M cache-resident elements, its compute ceiling; * = "
        "below the limit\n(compute-bound: compare GB/s with the ceiling rather than the limit).\n");
  }
}

}  // namespace

void AddBenchCommand(CLI::App& app, BenchOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "bench", "Benchmark the elewise operators against a bandwidth limit loop and Eigen");
  cmd->add_flag("--json", options.json, "Print JSON");
  cmd->add_flag("--quick", options.quick,
                "Tiny sizes (1/1024 of the issue's) and 3 rounds: checks that every case runs");
  cmd->add_option("--rounds", options.rounds, "Interleaved rounds per case (default 15)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--scale", options.scale, "Multiply every case's size (default 1, at most 64)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--filter", options.filter,
                  "Run the cases whose id contains this text (ids: fma_f32 sigmoid_f32 gelu_f32 "
                  "rmsnorm_f32 rmsnorm_bf16 softmax_f32)");
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
  Result<std::vector<bench::CaseResult>> results = bench::RunSuite(suite);
  if (!results.ok()) {
    std::fprintf(stderr, "tessera bench: %s\n", results.status().ToString().c_str());
    return 1;
  }
  if (!options.json) {
    PrintTable(*results, suite.rounds, suite.scale);
    return 0;
  }
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const bench::CaseResult& r : *results)
    cases.push_back(ResultJson(r));
  const nlohmann::ordered_json j = {
      {"profile", device::CurrentArch().name},
      {"worker_threads", device::WorkerThreads()},
      {"checked_mode", device::CheckedMode()},
      {"rounds", suite.rounds},
      {"scale", suite.scale},
      {"eigen",
       {{"available", bench::EigenAvailable()}, {"reason", bench::EigenUnavailableReason()}}},
      {"cases", cases},
  };
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}

}  // namespace tessera::cli
