// `tessera run`: runs an op on random inputs through the two-stage API, times it and checks the
// result against a scalar reference (built-in ops).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "op_runner.h"

namespace tessera::cli {
namespace {

constexpr uint32_t kSeed = 2024;

nlohmann::json CheckJson(const std::optional<CheckResult>& check) {
  if (!check) return {{"reference", false}, {"ok", nullptr}, {"note", "no reference"}};
  return {{"reference", true},
          {"ok", check->ok},
          {"checked", check->checked},
          {"mismatches", check->mismatches},
          {"first_mismatch", check->first_mismatch},
          {"max_abs_error", check->max_abs_error},
          {"max_rel_error", check->max_rel_error},
          {"tolerance_ulps", check->ulps}};
}

}  // namespace

void AddRunCommand(CLI::App& app, RunOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an op on random inputs: check it against a reference, time it, report GB/s");
  AddOpCallOptions(cmd, options.call);
  cmd->add_option("--iters", options.iters, "Timed calls after the first (default 10)");
}

int RunOpCommand(const RunOptions& options) {
  if (options.iters < 1) {
    return Fail("run", "--iters " + std::to_string(options.iters) + ": expected an integer >= 1");
  }
  Result<ResolvedCall> rc = BuildOpCall(options.call);
  if (!rc.ok()) return Fail("run", rc.status().ToString());
  Result<RunReport> r = RunOpCall(*rc, options.iters, kSeed);
  if (!r.ok()) return Fail("run", r.status().ToString());
  const bool ok = !r->check || r->check->ok;
  if (options.call.json) {
    nlohmann::json j = CallJson(rc->call);
    j.update({{"op", rc->op.op},
              {"package", r->plan.package},
              {"soc", r->plan.soc},
              {"block_dim", r->plan.block_dim},
              {"tiling_key", r->plan.tiling_key},
              {"workspace", r->plan.workspace},
              {"iters", r->iters},
              {"seed", kSeed},
              {"cold_us", r->cold_us},
              {"median_us", r->median_us},
              {"kernel_median_us", r->kernel_median_us},
              {"bytes", r->bytes},
              {"gbps", r->gbps},
              {"cache",
               {{"cold_hit", r->cold_cache_hit},
                {"hits", r->hits},
                {"calls", r->iters},
                {"tiling_calls", r->tiling_calls},
                {"hit", r->hits == static_cast<uint64_t>(r->iters)}}},
              {"check", CheckJson(r->check)},
              {"ok", ok}});
    std::printf("%s\n", j.dump(2).c_str());
    return ok ? 0 : 1;
  }
  std::string ins;
  for (const auto& in : rc->call.inputs)
    ins += (ins.empty() ? "" : ", ") + (in ? in->desc.ToString() : std::string("(absent)"));
  const std::string attrs = AttrsText(rc->call.attrs);
  std::printf("op           %s(%s) -> %s%s%s\n", rc->op.op.c_str(), ins.c_str(),
              rc->call.outputs.front().desc.ToString().c_str(), attrs.empty() ? "" : "  ",
              attrs.c_str());
  std::printf("plan         package %s, SoC %s, block dim %u, tiling key %llu, workspace %llu\n",
              r->plan.package.c_str(), r->plan.soc.c_str(), r->plan.block_dim,
              static_cast<unsigned long long>(r->plan.tiling_key),
              static_cast<unsigned long long>(r->plan.workspace));
  std::printf("first call   %.1f us (parameter cache %s)\n", r->cold_us,
              r->cold_cache_hit ? "hit" : "miss: package lookup and tiling ran");
  const std::string calls = std::to_string(r->iters) + " calls";
  std::printf("%-12s median %.2f us per call (prepare + launch + sync), kernel %.2f us\n",
              calls.c_str(), r->median_us, r->kernel_median_us);
  std::printf("bandwidth    %llu bytes read + written per call: %.3f GB/s\n",
              static_cast<unsigned long long>(r->bytes), r->gbps);
  std::printf("cache        %llu of %d calls hit the parameter cache (%llu tiling runs)\n",
              static_cast<unsigned long long>(r->hits), r->iters,
              static_cast<unsigned long long>(r->tiling_calls));
  if (!r->check) {
    std::printf("check        no reference for %s\n", rc->op.op.c_str());
  } else {
    const CheckResult& c = *r->check;
    std::printf(
        "check        %s: %lld elements, tolerance %g ulp, max abs error %g, max rel error "
        "%g",
        c.ok ? "OK" : "MISMATCH", static_cast<long long>(c.checked), c.ulps, c.max_abs_error,
        c.max_rel_error);
    if (!c.ok) {
      std::printf(", %lld wrong (first at %lld)", static_cast<long long>(c.mismatches),
                  static_cast<long long>(c.first_mismatch));
    }
    std::printf("\n");
  }
  return ok ? 0 : 1;
}

}  // namespace tessera::cli
