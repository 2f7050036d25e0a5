// tessera: inspect the device, run and time operators, show tiling plans.
#include <CLI/CLI.hpp>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"tessera - a CANN-style operator stack whose device is the CPU"};
  app.require_subcommand(1);
  tessera::cli::InfoOptions info;
  tessera::cli::DemoOptions demo;
  tessera::cli::AddInfoCommand(app, info);
  tessera::cli::AddDemoCommand(app, demo);
  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("info")) return tessera::cli::RunInfo(info);
  if (app.got_subcommand("demo")) return tessera::cli::RunDemo(demo);
  return 2;
}
