// Run-time selection of the Mmad implementation.
#include <span>
#include <vector>

#include "mmad_kernels.h"
#include "mmad_layout.h"

namespace tessera::kernel::detail {
namespace {

std::vector<MmadPath> DetectPaths() {
  std::vector<MmadPath> paths{MmadPath::kScalar};
  return paths;
}

const std::vector<MmadPath>& Paths() {
  static const std::vector<MmadPath> paths = DetectPaths();
  return paths;
}

}  // namespace

std::span<const MmadPath> MmadPathsAvailable() {
  return Paths();
}

const char* MmadPathName(MmadPath path) {
  switch (path) {
    case MmadPath::kScalar:
      return "scalar";
    case MmadPath::kAvx512:
      return "avx512";
    case MmadPath::kAvx512Bf16:
      return "avx512bf16";
  }
  return "unknown";
}

void RunMmadOn(MmadPath path, const MmadCall& call) {
  switch (path) {
    case MmadPath::kScalar:
    default:
      RunMmadScalar(call);
      return;
  }
}

void RunMmad(const MmadCall& call) {
  static const MmadPath best = Paths().back();
  RunMmadOn(best, call);
}

}  // namespace tessera::kernel::detail
