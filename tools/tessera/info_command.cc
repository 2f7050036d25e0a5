#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "tessera/device/device.h"

namespace tessera::cli {

void AddInfoCommand(CLI::App& app, InfoOptions& options) {
  CLI::App* cmd =
      app.add_subcommand("info", "Show the device profile, SoC, cores and buffer sizes");
  cmd->add_flag("--json", options.json, "Print JSON");
  cmd->add_option("--profile", options.profile, "Profile to show (default: the active one)");
}

nlohmann::json DeviceInfoJson(const device::ArchSpec& arch) {
  return {
      {"profile", arch.name},
      {"soc", arch.soc},
      {"emulated", arch.emulated},
      {"aic_cores", arch.aic_cores},
      {"aiv_cores", arch.aiv_cores},
      {"task_ration", arch.task_ration},
      {"ub_bytes", arch.ub_bytes},
      {"l1_bytes", arch.l1_bytes},
      {"l0a_bytes", arch.l0a_bytes},
      {"l0b_bytes", arch.l0b_bytes},
      {"l0c_bytes", arch.l0c_bytes},
      {"alignment", arch.alignment},
      {"worker_threads", device::WorkerThreads()},
      {"hardware_threads", device::HardwareThreads()},
      {"checked_mode", device::CheckedMode()},
      {"profiles", device::ProfileNames()},
  };
}

int RunInfo(const InfoOptions& options) {
  device::ArchSpec arch = device::CurrentArch();
  if (!options.profile.empty()) {
    Result<device::ArchSpec> found = device::FindProfile(options.profile);
    if (!found.ok()) {
      std::fprintf(stderr, "tessera info: %s\n", found.status().ToString().c_str());
      return 1;
    }
    arch = *found;
  }
  const nlohmann::json j = DeviceInfoJson(arch);
  if (options.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("profile           %s%s\n", arch.name.c_str(),
              arch.emulated ? " (emulated NPU)" : "");
  std::printf("soc               %s\n", arch.soc.c_str());
  std::printf("cores             %u AIC + %u AIV (MIX groups 1:%u)\n", arch.aic_cores,
              arch.aiv_cores, arch.task_ration);
  std::printf("buffers           UB %zu KiB, L1 %zu KiB, L0A %zu KiB, L0B %zu KiB, L0C %zu KiB\n",
              arch.ub_bytes >> 10, arch.l1_bytes >> 10, arch.l0a_bytes >> 10, arch.l0b_bytes >> 10,
              arch.l0c_bytes >> 10);
  std::printf("alignment         %u bytes\n", arch.alignment);
  std::printf("worker threads    %u (hardware threads %u)\n", device::WorkerThreads(),
              device::HardwareThreads());
  std::printf("checked mode      %s\n", device::CheckedMode() ? "on" : "off");
  return 0;
}

}  // namespace tessera::cli
