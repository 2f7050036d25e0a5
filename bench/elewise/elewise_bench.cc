// elewise throughput on the native profile (the cases of cases/cases.h, shared with
// `tessera bench`). Every iteration is one round: the limit loop, the elewise operator and the
// Eigen peer run in turn, so the reported ratios (medians of per-round ratios: ratio_limit =
// limit time / elewise time, ratio_eigen = Eigen time / elewise time) compare runs made under
// the same machine load. GB/s come from median times. Every case also reports its in-cache
// ceiling (the same operator on a cache-resident slice, measured in each round): when it is below
// the limit's GB/s, compute rather than memory bounds the case.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "cases.h"

namespace {

namespace tb = tessera::bench;

void RunCase(benchmark::State& state, const std::string& id) {
  auto made = tb::MakeCase(id, 1.0);
  if (!made.ok()) {
    state.SkipWithError(made.status().ToString().c_str());
    return;
  }
  tb::Case& c = **made;
  tessera::device::Stream stream;
  if (auto warm = c.RunRound(stream, true, true); !warm.ok()) {
    state.SkipWithError(warm.status().ToString().c_str());
    return;
  }
  std::vector<tb::RoundTimes> rounds;
  for (auto _ : state) {
    auto t = c.RunRound(stream, true, true);
    if (!t.ok()) {
      state.SkipWithError(t.status().ToString().c_str());
      return;
    }
    rounds.push_back(*t);
  }
  const tb::CaseResult r = tb::Summarize(c, rounds);
  state.counters["GBps"] = r.gbps;
  state.counters["limit_GBps"] = r.limit_gbps;
  state.counters["ratio_limit"] = r.ratio_limit;
  if (r.eigen_gbps) {
    state.counters["eigen_GBps"] = *r.eigen_gbps;
    state.counters["ratio_eigen"] = *r.ratio_eigen;
  }
  if (r.ceiling_gbps) {
    state.counters["ceiling_GBps"] = *r.ceiling_gbps;
    state.counters["ceiling_Gelem_s"] = *r.ceiling_gelems;
  }
  if (r.ratio_emulated) state.counters["ascend910b_over_native"] = *r.ratio_emulated;
}

int RegisterAll() {
  for (const std::string& id : tb::CaseIds()) {
    benchmark::RegisterBenchmark(("BM_" + id).c_str(), RunCase, id)
        ->Iterations(25)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int registered = RegisterAll();

}  // namespace

BENCHMARK_MAIN();
