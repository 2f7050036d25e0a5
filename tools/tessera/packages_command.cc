// `tessera packages`: the package search order as resolved, why each candidate was or was not
// used, and the packages loaded. `--explain OP [call description]` also says which packages
// define OP, which wins, why the others were not chosen, the op's binaries, and what binary and
// kernel entry a described call resolves to (through the runtime's own stage 1).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "runtime/package/package_match.h"
#include "tessera/device/device.h"

namespace tessera::cli {
namespace {

const char* OriginKind(runtime::PackageOrigin origin) {
  switch (origin) {
    case runtime::PackageOrigin::kCustomPath:
      return "custom";
    case runtime::PackageOrigin::kVendor:
      return "vendor";
    case runtime::PackageOrigin::kBuiltIn:
      return "built-in";
    case runtime::PackageOrigin::kLinked:
      return "linked";
  }
  return "unknown";
}

std::string EnvText(std::string_view name) {
  return runtime::ProcessEnv()(name).value_or("");
}

}  // namespace

std::string OriginText(const runtime::PackageCandidate& c) {
  switch (c.origin) {
    case runtime::PackageOrigin::kCustomPath:
      return std::string(runtime::kCustomOppPathEnv) + "[" + std::to_string(c.custom_index) + "]";
    case runtime::PackageOrigin::kVendor:
      return "vendor '" + c.vendor + "'";
    case runtime::PackageOrigin::kBuiltIn:
      return "built-in";
    case runtime::PackageOrigin::kLinked:
      return "linked into the application: " + c.linked;
    case runtime::PackageOrigin::kPinned:
      return "pinned by a generated op API";
  }
  return "unknown";
}

namespace {

namespace fs = std::filesystem;

// The loaded package of candidate `c`, or null when the candidate was not used.
const runtime::LoadedPackage* PackageOf(const runtime::PackageSet& set,
                                        const runtime::PackageCandidate& c) {
  if (!c.used) return nullptr;
  const std::string id = c.Describe();
  for (const runtime::LoadedPackage& p : set.packages) {
    if (p.candidate.Describe() == id) return &p;
  }
  return nullptr;
}

std::string OpsText(const runtime::PackageManifest& m) {
  if (m.ops.empty()) return "no ops";
  std::string s;
  for (size_t i = 0; i < m.ops.size() && i < 8; ++i)
    s += (i ? ", " : "") + m.ops[i].op;
  if (m.ops.size() > 8) s += ", ... (" + std::to_string(m.ops.size()) + " ops)";
  return s;
}

// The first tiling keys in ascending order: "0,1,3,... (16 keys)".
std::string KeysText(const nlohmann::json& keys) {
  std::vector<uint64_t> sorted = keys.get<std::vector<uint64_t>>();
  std::sort(sorted.begin(), sorted.end());
  std::string s;
  for (size_t i = 0; i < sorted.size() && i < 8; ++i)
    s += (i ? "," : "") + std::to_string(sorted[i]);
  if (sorted.size() > 8) s += ",... (" + std::to_string(sorted.size()) + " keys)";
  return s.empty() ? "none" : s;
}

// Vendor packages: config.ini's load_priority, each listed vendor's fate, and vendor directories
// that are present but not listed (never searched).
nlohmann::json VendorsJson(const std::string& opp, const runtime::PackageSet& set) {
  nlohmann::json j = {{"opp_path", opp},
                      {"config", ""},
                      {"load_priority", nlohmann::json::array()},
                      {"vendors", nlohmann::json::array()},
                      {"note", ""}};
  if (opp.empty()) {
    j["note"] = std::string(runtime::kOppPathEnv) + " is unset: no vendor packages searched";
    return j;
  }
  const fs::path vendors = fs::path(opp) / "vendors";
  const fs::path config = vendors / "config.ini";
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) {
    j["note"] = config.string() + " does not exist: no vendor packages searched";
    return j;
  }
  j["config"] = config.string();
  Result<runtime::VendorConfig> parsed = runtime::ParseVendorConfigFile(config);
  if (!parsed.ok()) {
    j["note"] = std::string(parsed.status().message());
    return j;
  }
  j["load_priority"] = parsed->load_priority;
  for (const runtime::PackageCandidate& c : set.searched) {
    if (c.origin != runtime::PackageOrigin::kVendor) continue;
    j["vendors"].push_back({{"name", c.vendor},
                            {"path", c.dir.string()},
                            {"listed", true},
                            {"used", c.used},
                            {"reason", c.used ? "searched" : c.reason}});
  }
  std::vector<std::string> unlisted;
  for (fs::directory_iterator it(vendors, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    const std::string name = it->path().filename().string();
    if (it->is_directory(dir_ec) &&
        std::find(parsed->load_priority.begin(), parsed->load_priority.end(), name) ==
            parsed->load_priority.end()) {
      unlisted.push_back(name);
    }
  }
  std::sort(unlisted.begin(), unlisted.end());
  for (const std::string& name : unlisted) {
    j["vendors"].push_back(
        {{"name", name},
         {"path", (vendors / name).string()},
         {"listed", false},
         {"used", false},
         {"reason", "not listed in load_priority of " + config.string() + "; not searched"}});
  }
  return j;
}

// Runs stage 1 of the described call exactly as the runtime does for an application (parameter
// cache cleared, so the package search really runs) and reports the plan or the runtime's error.
nlohmann::json ExplainCall(const PackagesOptions& options, nlohmann::json& binaries) {
  OpCallOptions described = options.call;
  described.op = options.explain;
  Result<ResolvedCall> rc = BuildOpCall(described);
  if (!rc.ok()) {
    return {{"ok", false},
            {"error", "call description rejected: " + std::string(rc.status().message())}};
  }
  nlohmann::json j = CallJson(rc->call);
  DeviceBuffers buffers;
  if (Status st = buffers.Bind(rc->call); !st.ok()) {
    j.update({{"ok", false}, {"error", st.ToString()}});
    return j;
  }
  runtime::ClearParamCache();
  uint64_t workspace = 0;
  Result<std::unique_ptr<runtime::OpExecutor>> exec = runtime::PrepareOp(rc->call, &workspace);
  if (!exec.ok()) {
    j.update({{"ok", false}, {"error", exec.status().ToString()}});
    return j;
  }
  const runtime::PlanInfo plan = (*exec)->info();
  for (nlohmann::json& b : binaries) {
    b["chosen"] = b["soc"] == plan.soc && b["simplified_key"] == plan.simplified_key &&
                  b["bin_path"] == plan.binary;
  }
  j.update({{"ok", true},
            {"package", plan.package},
            {"package_dir", plan.package_dir},
            {"soc", plan.soc},
            {"simplified_key", plan.simplified_key},
            {"binary", plan.binary},
            {"binary_path", (fs::path(plan.package_dir) / plan.binary).string()},
            {"kernel", plan.kernel_name},
            {"entry", plan.kernel_name + "_" + std::to_string(plan.tiling_key)},
            {"tiling_key", plan.tiling_key},
            {"block_dim", plan.block_dim},
            {"workspace", plan.workspace}});
  return j;
}

void PrintExplain(const nlohmann::json& j) {
  const auto str = [](const nlohmann::json& v) { return v.get<std::string>(); };
  const std::string op = str(j["op"]);
  const nlohmann::json& env = j["env"];
  const auto env_text = [&](std::string_view name) {
    const std::string v = str(env[std::string(name)]);
    return v.empty() ? std::string("(unset)") : v;
  };
  std::printf("explain %s\n  %s=%s\n  %s=%s\n  built-in package dir: %s\n  this machine: %s\n",
              op.c_str(), runtime::kCustomOppPathEnv.data(),
              env_text(runtime::kCustomOppPathEnv).c_str(), runtime::kOppPathEnv.data(),
              env_text(runtime::kOppPathEnv).c_str(), str(env["builtin_dir"]).c_str(),
              str(j["device"]["description"]).c_str());
  std::printf("\nsearch order (the first package that defines %s wins):\n", op.c_str());
  for (const auto& c : j["search"]) {
    std::printf("  %d. %s\n       %s\n", c["position"].get<int>(), str(c["describe"]).c_str(),
                str(c["role"]).c_str());
  }
  const nlohmann::json& v = j["vendors"];
  std::printf("\nvendors:\n");
  if (!str(v["note"]).empty()) std::printf("  %s\n", str(v["note"]).c_str());
  if (!str(v["config"]).empty()) {
    std::string order;
    for (const auto& name : v["load_priority"])
      order += (order.empty() ? "" : ",") + str(name);
    std::printf("  %s: load_priority=%s\n", str(v["config"]).c_str(), order.c_str());
  }
  for (const auto& vendor : v["vendors"]) {
    std::printf("  vendor '%s' %s: %s\n", str(vendor["name"]).c_str(), str(vendor["path"]).c_str(),
                str(vendor["reason"]).c_str());
  }
  if (!j["warnings"].empty()) {
    std::printf("\nwarnings:\n");
    for (const auto& w : j["warnings"])
      std::printf("  %s\n", str(w).c_str());
  }
  if (j["winner"].is_null()) {
    std::printf("\n%s is defined by no package searched.\n", op.c_str());
    return;
  }
  std::printf("\n%s resolves to package %s (%s).\n", op.c_str(),
              str(j["winner"]["package"]).c_str(), str(j["winner"]["describe"]).c_str());
  if (!j["not_chosen"].empty()) {
    std::printf("searched before it, not chosen:\n");
    for (const auto& c : j["not_chosen"])
      std::printf("  %s: %s\n", str(c["describe"]).c_str(), str(c["reason"]).c_str());
  }
  if (!j["shadowed"].empty()) {
    std::printf("shadowed (also define %s, lower priority):\n", op.c_str());
    for (const auto& c : j["shadowed"])
      std::printf("  package %s (%s)\n", str(c["package"]).c_str(), str(c["describe"]).c_str());
  }
  std::printf("\nbinaries of %s in package %s:\n", op.c_str(), str(j["winner"]["package"]).c_str());
  for (const auto& b : j["binaries"]) {
    std::printf("  %s %-10s %s\n      %s  tiling keys %s%s\n", b.value("chosen", false) ? "*" : " ",
                str(b["soc"]).c_str(), str(b["simplified_key"]).c_str(), str(b["bin_path"]).c_str(),
                KeysText(b["tiling_keys"]).c_str(),
                b["runs_here"].get<bool>() ? "" : "  (does not run on this machine)");
  }
  if (!j.contains("call")) return;
  const nlohmann::json& call = j["call"];
  if (call.contains("inputs")) {
    std::string ins, outs;
    for (const auto& in : call["inputs"])
      ins += (ins.empty() ? "" : ", ") + (in.is_null() ? std::string("(absent)") : str(in));
    for (const auto& out : call["outputs"])
      outs += (outs.empty() ? "" : ", ") + str(out);
    std::printf("\ncall %s(%s) -> %s", op.c_str(), ins.c_str(), outs.c_str());
    for (const auto& [name, value] : call["attrs"].items())
      std::printf(" %s=%s", name.c_str(), value.dump().c_str());
    std::printf("\n");
  } else {
    std::printf("\ncall\n");
  }
  if (!call["ok"].get<bool>()) {
    std::printf("  fails: %s\n", str(call["error"]).c_str());
    if (call.contains("note")) std::printf("  note: %s\n", str(call["note"]).c_str());
    return;
  }
  std::printf("  package         %s (%s)\n", str(call["package"]).c_str(),
              str(call["package_dir"]).c_str());
  std::printf("  soc             %s\n", str(call["soc"]).c_str());
  std::printf("  simplified key  %s\n", str(call["simplified_key"]).c_str());
  std::printf("  binary          %s (%s)\n", str(call["binary"]).c_str(),
              str(call["binary_path"]).c_str());
  std::printf("  kernel entry    %s (tiling key %s)\n", str(call["entry"]).c_str(),
              call["tiling_key"].dump().c_str());
  std::printf("  block dim       %s\n", call["block_dim"].dump().c_str());
  std::printf("  workspace       %s bytes\n", call["workspace"].dump().c_str());
}

int RunExplain(const PackagesOptions& options, bool described) {
  const std::string& op = options.explain;
  Result<runtime::PackageSet> set = LoadPackageSet();
  if (!set.ok()) return Fail("packages", set.status().ToString());
  const device::ArchSpec& arch = device::CurrentArch();
  const runtime::DeviceTarget device{arch.soc, arch.compute_unit};
  const std::string opp = EnvText(runtime::kOppPathEnv);
  nlohmann::json j = {{"op", op},
                      {"env",
                       {{runtime::kCustomOppPathEnv, EnvText(runtime::kCustomOppPathEnv)},
                        {runtime::kOppPathEnv, opp},
                        {"builtin_dir", runtime::BuiltinPackageDir()}}},
                      {"device",
                       {{"soc", arch.soc},
                        {"compute_unit", arch.compute_unit},
                        {"description", runtime::DescribeDevice(device)}}},
                      {"vendors", VendorsJson(opp, *set)},
                      {"warnings", set->warnings},
                      {"winner", nullptr}};
  nlohmann::json search = nlohmann::json::array(), not_chosen = nlohmann::json::array(),
                 shadowed = nlohmann::json::array(), binaries = nlohmann::json::array();
  const runtime::LoadedPackage* winner = nullptr;
  for (size_t i = 0; i < set->searched.size(); ++i) {
    const runtime::PackageCandidate& c = set->searched[i];
    const runtime::LoadedPackage* p = PackageOf(*set, c);
    const runtime::OpManifest* m = p ? runtime::FindOpInManifest(p->manifest, op) : nullptr;
    const std::string name = p ? "package " + p->manifest.package + " " + p->manifest.version : "";
    std::string role;
    if (p == nullptr) {
      role = "skipped: " + (c.reason.empty() ? std::string("not loaded") : c.reason);
    } else if (m == nullptr) {
      role = name + " does not define " + op + " (it defines " + OpsText(p->manifest) + ")";
    } else if (winner == nullptr) {
      role = name + " defines " + op + ": wins";
    } else {
      role = name + " also defines " + op + ": shadowed by " + winner->manifest.package + " (" +
             winner->candidate.dir.string() + ")";
    }
    nlohmann::json entry = {{"position", i + 1},
                            {"describe", c.Describe()},
                            {"path", c.dir.string()},
                            {"origin", OriginKind(c.origin)},
                            {"source", OriginText(c)},
                            {"used", p != nullptr},
                            {"reason", p ? "" : c.reason},
                            {"package", p ? p->manifest.package : ""},
                            {"version", p ? p->manifest.version : ""},
                            {"defines_op", m != nullptr},
                            {"role", role}};
    if (m != nullptr && winner != nullptr) {
      shadowed.push_back({{"package", p->manifest.package}, {"describe", c.Describe()}});
    }
    if (m != nullptr && winner == nullptr) {
      winner = p;
      j["winner"] = {{"package", p->manifest.package},
                     {"version", p->manifest.version},
                     {"path", c.dir.string()},
                     {"source", OriginText(c)},
                     {"describe", c.Describe()}};
      for (const runtime::ManifestBinary& b : m->binaries) {
        nlohmann::json keys = nlohmann::json::array();
        for (const runtime::ManifestKernel& k : b.kernels)
          keys.push_back(k.tiling_key);
        binaries.push_back({{"soc", b.soc},
                            {"simplified_key", b.simplified_key},
                            {"bin_path", b.bin_path},
                            {"tiling_keys", keys},
                            {"runs_here", runtime::BinaryRunsOn(b.soc, device)},
                            {"chosen", false}});
      }
    }
    if (winner == nullptr) {
      not_chosen.push_back({{"describe", c.Describe()},
                            {"reason", p == nullptr ? role : role.substr(name.size() + 1)}});
    }
    search.push_back(std::move(entry));
  }
  int exit_code = 0;
  std::string error;
  if (winner == nullptr) {
    error = std::string(runtime::FindOp(*set, op).status().message());
    exit_code = 1;
  } else if (described) {
    nlohmann::json call = ExplainCall(options, binaries);
    if (!call["ok"].get<bool>()) {
      error = call["error"].get<std::string>();
      exit_code = 1;
      if (!shadowed.empty()) {
        call["note"] = "package " + winner->manifest.package + " defines " + op +
                       ", so it takes every " + op +
                       " call, even one it cannot run: the lower-priority packages that also "
                       "define " +
                       op + " (" + shadowed[0]["package"].get<std::string>() +
                       (shadowed.size() > 1 ? ", ..." : "") + ") are not tried";
      }
    }
    j["call"] = std::move(call);
  }
  j["search"] = std::move(search);
  j["not_chosen"] = std::move(not_chosen);
  j["shadowed"] = std::move(shadowed);
  j["binaries"] = std::move(binaries);
  j["error"] = error.empty() ? nlohmann::json() : nlohmann::json(error);
  if (options.json) {
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    PrintExplain(j);
  }
  std::fflush(stdout);
  return exit_code == 0 ? 0 : Fail("packages", "--explain " + op + ": " + error);
}

}  // namespace

void AddPackagesCommand(CLI::App& app, PackagesOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "packages", "Show the operator package search order and why each candidate is (not) used");
  cmd->add_flag("--json", options.json, "Print JSON");
  cmd->add_option("--explain", options.explain,
                  "Explain how op OP resolves: packages searched, which defines it and wins, its "
                  "binaries; with a call description (--shape, --dtype, --attr, ...) also the "
                  "binary and kernel entry the call runs");
  AddCallDescriptionOptions(cmd, options.call);
  cmd->footer(
      "With --explain the exit code is 1 when the op is in no package or the described call "
      "fails to resolve (the explanation is still printed; the error goes to stderr).");
}

int RunPackages(const PackagesOptions& options) {
  const OpCallOptions& c = options.call;
  const bool described = !c.shapes.empty() || !c.dtype.empty() || !c.attrs.empty() ||
                         !c.out_shape.empty() || !c.out_dtype.empty();
  if (!options.explain.empty()) return RunExplain(options, described);
  if (described) {
    return Fail("packages",
                "--shape, --dtype, --attr, --out-shape and --out-dtype describe a call to "
                "explain; pass --explain OP with them");
  }
  Result<runtime::PackageSet> set = LoadPackageSet();
  if (!set.ok()) return Fail("packages", set.status().ToString());
  const std::string custom = EnvText(runtime::kCustomOppPathEnv);
  const std::string opp = EnvText(runtime::kOppPathEnv);
  const std::string builtin = runtime::BuiltinPackageDir();
  if (options.json) {
    nlohmann::json search = nlohmann::json::array(), packages = nlohmann::json::array();
    for (size_t i = 0; i < set->searched.size(); ++i) {
      const runtime::PackageCandidate& c = set->searched[i];
      nlohmann::json j = {
          {"position", i},           {"path", c.dir.string()}, {"origin", OriginKind(c.origin)},
          {"source", OriginText(c)}, {"used", c.used},         {"reason", c.reason}};
      if (c.origin == runtime::PackageOrigin::kCustomPath) j["custom_index"] = c.custom_index;
      if (c.origin == runtime::PackageOrigin::kVendor) j["vendor"] = c.vendor;
      search.push_back(j);
    }
    for (const runtime::LoadedPackage& p : set->packages) {
      nlohmann::json ops = nlohmann::json::array();
      for (const auto& op : p.manifest.ops)
        ops.push_back(op.op);
      packages.push_back({{"name", p.manifest.package},
                          {"version", p.manifest.version},
                          {"path", p.candidate.dir.string()},
                          {"origin", OriginKind(p.candidate.origin)},
                          {"source", OriginText(p.candidate)},
                          {"op_count", p.manifest.ops.size()},
                          {"ops", ops}});
    }
    const nlohmann::json j = {{"env",
                               {{runtime::kCustomOppPathEnv, custom},
                                {runtime::kOppPathEnv, opp},
                                {"builtin_dir", builtin}}},
                              {"search", search},
                              {"packages", packages},
                              {"warnings", set->warnings}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf(
      "%s=%s\n%s=%s\nbuilt-in package dir: %s\n\nsearch order (first package with an op "
      "wins):\n",
      runtime::kCustomOppPathEnv.data(), custom.empty() ? "(unset)" : custom.c_str(),
      runtime::kOppPathEnv.data(), opp.empty() ? "(unset)" : opp.c_str(), builtin.c_str());
  for (size_t i = 0; i < set->searched.size(); ++i) {
    const runtime::PackageCandidate& c = set->searched[i];
    std::printf("  %zu. %-28s %s\n       %s\n", i + 1, OriginText(c).c_str(),
                c.dir.empty() ? "<empty>" : c.dir.string().c_str(),
                c.used ? "used" : ("skipped: " + c.reason).c_str());
  }
  std::printf("\npackages loaded:\n");
  if (set->packages.empty()) std::printf("  (none)\n");
  for (const runtime::LoadedPackage& p : set->packages) {
    std::printf("  %-16s version %-10s %3zu ops  %s\n", p.manifest.package.c_str(),
                p.manifest.version.c_str(), p.manifest.ops.size(),
                p.candidate.dir.string().c_str());
  }
  if (!set->warnings.empty()) {
    std::printf("\nwarnings:\n");
    for (const std::string& w : set->warnings)
      std::printf("  %s\n", w.c_str());
  }
  return 0;
}

}  // namespace tessera::cli
