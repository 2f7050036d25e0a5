// tessera: inspect the device, list operators and packages, show tiling plans, run and check ops.
#include <CLI/CLI.hpp>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"tessera - a CANN-style operator stack whose device is the CPU"};
  app.require_subcommand(1);
  tessera::cli::InfoOptions info;
  tessera::cli::DemoOptions demo;
  tessera::cli::ListOptions ops;
  tessera::cli::PackagesOptions packages;
  tessera::cli::VerifyOptions verify;
  tessera::cli::OpCallOptions tiling;
  tessera::cli::RunOptions run;
#if TESSERA_CLI_HAS_BENCH
  tessera::cli::BenchOptions bench;
#endif
  tessera::cli::TraceOptions trace;
  tessera::cli::AscendcCheckOptions ascendc_check;
  tessera::cli::AddInfoCommand(app, info);
  tessera::cli::AddOpsCommand(app, ops);
  tessera::cli::AddPackagesCommand(app, packages);
  tessera::cli::AddTilingCommand(app, tiling);
  tessera::cli::AddRunCommand(app, run);
#if TESSERA_CLI_HAS_BENCH
  tessera::cli::AddBenchCommand(app, bench);
#endif
  tessera::cli::AddDemoCommand(app, demo);
  tessera::cli::AddVerifyCommand(app, verify);
  tessera::cli::AddTraceCommand(app, trace);
  tessera::cli::AddAscendcCheckCommand(app, ascendc_check);
  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("info")) return tessera::cli::RunInfo(info);
  if (app.got_subcommand("ops")) return tessera::cli::RunOps(ops);
  if (app.got_subcommand("packages")) return tessera::cli::RunPackages(packages);
  if (app.got_subcommand("tiling")) return tessera::cli::RunTilingCommand(tiling);
  if (app.got_subcommand("run")) return tessera::cli::RunOpCommand(run);
#if TESSERA_CLI_HAS_BENCH
  if (app.got_subcommand("bench")) return tessera::cli::RunBench(bench);
#endif
  if (app.got_subcommand("demo")) return tessera::cli::RunDemo(demo);
  if (app.got_subcommand("verify")) return tessera::cli::RunVerify(verify);
  if (app.got_subcommand("trace")) return tessera::cli::RunTrace(trace);
  if (app.got_subcommand("ascendc-check")) return tessera::cli::RunAscendcCheck(ascendc_check);
  return 2;
}
