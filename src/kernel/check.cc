#include "tessera/kernel/check.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tessera/kernel/local_tensor.h"

namespace tessera::kernel {
namespace {

// All findings of the process, rewritten to TESSERA_CHECK_REPORT after each new one (findings
// are rare, and a crash right after one must not lose it).
struct Report {
  std::mutex mu;
  nlohmann::json findings = nlohmann::json::array();
};

Report& TheReport() {
  static Report* report = new Report();
  return *report;
}

void Record(std::string_view api, const std::string& message) {
  const char* path = std::getenv("TESSERA_CHECK_REPORT");
  if (path == nullptr || path[0] == '\0') return;
  const device::BlockContext* block = device::CurrentBlock();
  nlohmann::json finding = {
      {"api", std::string(api)},
      {"message", message},
      {"kernel", block ? block->kernel_name : ""},
      {"block", block ? block->block_idx : 0},
      {"core_type", block ? device::CoreTypeName(block->core_type) : ""},
      {"checked_mode", block ? block->checked : false},
  };
  Report& report = TheReport();
  std::lock_guard<std::mutex> lock(report.mu);
  report.findings.push_back(std::move(finding));
  if (std::FILE* f = std::fopen(path, "w")) {
    const std::string text = nlohmann::json{{"findings", report.findings}}.dump(2);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

}  // namespace

const char* TPositionName(TPosition pos) {
  static const char* const kNames[] = {"GM",  "VECIN", "VECOUT", "VECCALC",  "A1",
                                       "A2",  "B1",    "B2",     "C1",       "C2",
                                       "CO1", "CO2",   "TSCM",   "C2PIPE2GM"};
  const auto i = static_cast<size_t>(pos);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "invalid";
}

void KernelFail(std::string_view api, const std::string& message) {
  Record(api, message);
  device::FailBlock(StatusCode::kKernelError, std::string(api) + ": " + message);
}

void KernelFinding(std::string_view api, const std::string& message) {
  Record(api, message);
  device::RecordBlockFailure(StatusCode::kKernelError, std::string(api) + ": " + message);
}

}  // namespace tessera::kernel
