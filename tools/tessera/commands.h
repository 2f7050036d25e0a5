// Subcommands of the tessera CLI. Each returns the process exit code.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace tessera::cli {

struct InfoOptions {
  bool json = false;
  std::string profile;
};
void AddInfoCommand(CLI::App& app, InfoOptions& options);
int RunInfo(const InfoOptions& options);

struct DemoOptions {
  bool json = false;
};
void AddDemoCommand(CLI::App& app, DemoOptions& options);
int RunDemo(const DemoOptions& options);

}  // namespace tessera::cli
