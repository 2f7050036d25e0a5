// `tessera run`: runs an op on random inputs through the two-stage API, times it, checks the
// result against the op definition's Reference() (built-in ops declare theirs like any package's)
// and with --save writes inputs and outputs as .npy files.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "npy.h"
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
          {"tolerance_ulps", check->ulps},
          {"source", check->reference}};
}

// --save DIR: an existing directory, or one that can be created.
Status PrepareSaveDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      return InvalidArgument("--save '" + dir + "': exists and is not a directory");
    }
    return OkStatus();
  }
  if (!fs::create_directories(dir, ec) && ec) {
    return InvalidArgument("--save '" + dir + "': cannot create the directory: " + ec.message());
  }
  return OkStatus();
}

// A parameter name as part of a file name: letters, digits and '_' kept, anything else '_'.
std::string FilePart(const std::string& name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out;
}

// Writes input<i>_<name>.npy for each present input and output<i>_<name>.npy for each output;
// returns what was written (the "saved" JSON).
Result<nlohmann::json> SaveTensors(const std::string& dir, const ResolvedCall& rc,
                                   const RunReport& r) {
  nlohmann::json files = nlohmann::json::array();
  const auto save = [&](const char* kind, size_t index, const std::string& name,
                        const HostTensor& t) -> Status {
    const std::string file =
        std::string(kind) + std::to_string(index) + "_" + FilePart(name) + ".npy";
    TESSERA_RETURN_IF_ERROR(WriteNpy(std::filesystem::path(dir) / file, t.desc(), t.bytes()));
    std::vector<int64_t> shape(t.desc().shape.dims().begin(), t.desc().shape.dims().end());
    files.push_back({{"file", file},
                     {"tensor", kind},
                     {"index", index},
                     {"name", name},
                     {"dtype", DataTypeName(t.desc().dtype)},
                     {"npy_dtype", NpyDescr(t.desc().dtype)},
                     {"shape", shape}});
    return OkStatus();
  };
  size_t next = 0;
  for (size_t i = 0; i < rc.call.inputs.size(); ++i) {
    if (!rc.call.inputs[i]) continue;
    TESSERA_RETURN_IF_ERROR(save("input", i, rc.op.inputs.at(i).name, r.inputs.at(next++)));
  }
  for (size_t i = 0; i < r.outputs.size(); ++i)
    TESSERA_RETURN_IF_ERROR(save("output", i, rc.op.outputs.at(i).name, r.outputs[i]));
  return nlohmann::json{{"dir", dir}, {"files", files}};
}

}  // namespace

void AddRunCommand(CLI::App& app, RunOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "run", "Run an op on random inputs: check it against a reference, time it, report GB/s");
  AddOpCallOptions(cmd, options.call);
  cmd->add_option("--iters", options.iters, "Timed calls after the first (default 10)");
  cmd->add_option("--save", options.save_dir,
                  "Write the inputs and outputs to this directory as .npy files");
}

int RunOpCommand(const RunOptions& options) {
  if (options.iters < 1) {
    return Fail("run", "--iters " + std::to_string(options.iters) + ": expected an integer >= 1");
  }
  Result<ResolvedCall> rc = BuildOpCall(options.call);
  if (!rc.ok()) return Fail("run", rc.status().ToString());
  const bool save = !options.save_dir.empty();
  if (save) {
    if (Status st = PrepareSaveDir(options.save_dir); !st.ok()) return Fail("run", st.ToString());
  }
  Result<RunReport> r = RunOpCall(*rc, options.iters, kSeed, save);
  if (!r.ok()) return Fail("run", r.status().ToString());
  const bool ok = !r->check || r->check->ok;
  nlohmann::json saved = nullptr;
  if (save) {
    Result<nlohmann::json> written = SaveTensors(options.save_dir, *rc, *r);
    if (!written.ok()) return Fail("run", written.status().ToString());
    saved = std::move(written).value();
  }
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
              {"saved", saved},
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
  if (save) {
    std::printf("saved        %s:", options.save_dir.c_str());
    for (const auto& f : saved["files"])
      std::printf(" %s", f["file"].get<std::string>().c_str());
    std::printf("\n");
  }
  if (!r->check) {
    std::printf("check        no reference for %s (its OpDef declares no Reference())\n",
                rc->op.op.c_str());
  } else {
    const CheckResult& c = *r->check;
    std::printf(
        "check        %s: %lld elements (%s reference), tolerance %g ulp, max abs error %g, max "
        "rel error %g",
        c.ok ? "OK" : "MISMATCH", static_cast<long long>(c.checked), c.reference.c_str(), c.ulps,
        c.max_abs_error, c.max_rel_error);
    if (!c.ok) {
      std::printf(", %lld wrong (first at %lld)", static_cast<long long>(c.mismatches),
                  static_cast<long long>(c.first_mismatch));
    }
    std::printf("\n");
  }
  return ok ? 0 : 1;
}

}  // namespace tessera::cli
