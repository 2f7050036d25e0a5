// `tessera packages`: the package search order as resolved, why each candidate was or was not
// used, and the packages loaded.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"

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
  }
  return "unknown";
}

void AddPackagesCommand(CLI::App& app, ListOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "packages", "Show the operator package search order and why each candidate is (not) used");
  cmd->add_flag("--json", options.json, "Print JSON");
}

int RunPackages(const ListOptions& options) {
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
