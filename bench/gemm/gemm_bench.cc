// Google Benchmark front end of the GEMM cases (bench/gemm/cases): one benchmark per case id;
// each reports its rows as counters (GFLOP/s and the same-run ratios). The peers need the
// tessera_gemm_peer program (built next to this one, or $TESSERA_GEMM_PEER).
// TESSERA_GEMM_BENCH_ROUNDS (default 3), TESSERA_GEMM_BENCH_QUICK=1 (sizes / 8) and
// TESSERA_GEMM_BENCH_OPENBLAS_CORETYPE (default: unset, OpenBLAS detects the CPU) and
// TESSERA_GEMM_BENCH_WALL_CLOCK=1 (time by the wall clock instead of CPU time) adjust a run.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "gemm_cases.h"

namespace {

tessera::bench::gemm::SuiteOptions Options(const std::string& id) {
  tessera::bench::gemm::SuiteOptions o;
  o.filter = id;
  if (const char* r = std::getenv("TESSERA_GEMM_BENCH_ROUNDS"))
    o.rounds = std::max(1, std::atoi(r));
  if (const char* q = std::getenv("TESSERA_GEMM_BENCH_QUICK")) o.quick = std::atoi(q) != 0;
  if (const char* c = std::getenv("TESSERA_GEMM_BENCH_OPENBLAS_CORETYPE")) o.openblas_coretype = c;
  if (const char* w = std::getenv("TESSERA_GEMM_BENCH_WALL_CLOCK"))
    o.wall_clock = std::atoi(w) != 0;
  return o;
}

void RunCase(benchmark::State& state, const std::string& id) {
  for (auto _ : state) {
    auto rows = tessera::bench::gemm::RunSuite(Options(id));
    if (!rows.ok()) {
      state.SkipWithError(std::string(rows.status().ToString()).c_str());
      return;
    }
    int index = 0;
    for (const auto& row : *rows) {
      if (row.id != id) continue;  // the peak rows come with every case
      const std::string prefix = index == 0 ? "" : std::to_string(index) + ":";
      state.counters[prefix + "GFLOP/s"] = row.gflops;
      for (const auto& [label, value] : row.ratios)
        state.counters[prefix + label] = value;
      if (index == 0) state.SetLabel(row.title + (row.note.empty() ? "" : " [" + row.note + "]"));
      ++index;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::string& id : tessera::bench::gemm::CaseIds()) {
    benchmark::RegisterBenchmark(id.c_str(), [id](benchmark::State& s) { RunCase(s, id); })
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
