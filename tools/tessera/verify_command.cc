// `tessera verify PACKAGE_DIR`: checks an operator package before deployment (manifest, binaries
// and their sha256, kernel entries vs tiling keys, op library vs manifest, tiling struct hashes,
// SoC coverage) and prints one line per finding plus a summary; exit code 1 on any failure.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "verify/package_verify.h"

namespace tessera::cli {
namespace {

using runtime::FindingSeverity;

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

void AddVerifyCommand(CLI::App& app, VerifyOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "verify", "Check an operator package directory before deployment and print a report");
  cmd->add_option("package_dir", options.dir, "Package directory (the one holding manifest.json)")
      ->required();
  cmd->add_flag("--json", options.json, "Print JSON");
  cmd->footer(
      "Checks: manifest schema; every kernel library present, sha256 as recorded, loadable, "
      "exporting tessera_kernel_entries; manifest tiling keys vs library entries both ways, kernel "
      "type and parameter count; op library loads, defines exactly the manifest's ops with the "
      "recorded tiling struct hash; SoCs known and covering each op's AddConfig SoCs; some binary "
      "runs on this machine. Libraries built for SoCs this machine cannot run are skipped (SKIP).\n"
      "Exit code: 0 when no check fails (warnings and skips alone give 0), 1 on any FAIL or when "
      "PACKAGE_DIR is not a directory.");
}

int RunVerify(const VerifyOptions& options) {
  Result<runtime::PackageReport> report = runtime::VerifyPackage(options.dir);
  if (!report.ok()) return Fail("verify", report.status().ToString());
  const size_t fails = report->Count(FindingSeverity::kFail),
               warns = report->Count(FindingSeverity::kWarn),
               skips = report->Count(FindingSeverity::kSkip),
               passes = report->Count(FindingSeverity::kPass);
  if (options.json) {
    nlohmann::json findings = nlohmann::json::array();
    for (const runtime::PackageFinding& f : report->findings) {
      findings.push_back({{"severity", runtime::FindingSeverityName(f.severity)},
                          {"check", f.check},
                          {"subject", f.subject},
                          {"message", f.message}});
    }
    const nlohmann::json j = {
        {"dir", report->dir.string()},
        {"package", report->package},
        {"version", report->version},
        {"device", {{"soc", report->device_soc}, {"compute_unit", report->device_compute_unit}}},
        {"ok", report->ok()},
        {"counts", {{"pass", passes}, {"skip", skips}, {"warn", warns}, {"fail", fails}}},
        {"findings", findings}};
    std::printf("%s\n", j.dump(2).c_str());
    return report->ok() ? 0 : 1;
  }
  std::printf("package %s %s at %s (this machine: %s%s%s)\n",
              report->package.empty() ? "?" : report->package.c_str(), report->version.c_str(),
              report->dir.string().c_str(), report->device_soc.c_str(),
              report->device_compute_unit.empty() ? "" : ", ", report->device_compute_unit.c_str());
  for (const runtime::PackageFinding& f : report->findings) {
    const std::string subject = f.subject == "package" ? "" : f.subject + ": ";
    std::printf("%s  %-15s %s%s\n", runtime::FindingSeverityName(f.severity).data(),
                f.check.c_str(), subject.c_str(), f.message.c_str());
  }
  const std::string counts =
      Plural(fails, "failure", "failures") + ", " + Plural(warns, "warning", "warnings") + ", " +
      Plural(skips, "skipped", "skipped") + ", " + Plural(passes, "check passed", "checks passed");
  std::printf("result: %s (%s)\n", report->ok() ? "PASS" : "FAIL", counts.c_str());
  return report->ok() ? 0 : 1;
}

}  // namespace tessera::cli
