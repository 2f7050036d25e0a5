// Run-time selection of the Mmad implementation, and the per-thread scratch of the SIMD paths.
#include <cstddef>
#include <new>
#include <span>
#include <vector>

#include "mmad_kernels.h"
#include "mmad_layout.h"

namespace tessera::kernel::detail {
namespace {

std::vector<MmadPath> DetectPaths() {
  std::vector<MmadPath> paths{MmadPath::kScalar};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // __builtin_cpu_supports also checks that the OS saves the zmm state (XCR0).
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c")) {
    paths.push_back(MmadPath::kAvx2);
  }
  if (avx512) {
    paths.push_back(MmadPath::kAvx512);
    if (__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512vnni")) {
      paths.push_back(MmadPath::kAvx512Bf16);
    }
  }
#endif
  return paths;
}

const std::vector<MmadPath>& Paths() {
  static const std::vector<MmadPath> paths = DetectPaths();
  return paths;
}

// One growable 64-byte aligned buffer; the thread keeps it for its lifetime.
class ScratchBuffer {
 public:
  ScratchBuffer() = default;
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer() { Release(); }

  uint32_t* Get(size_t units) {
    if (units > capacity_) {
      Release();
      // Round up so that a slowly growing sequence of calls does not reallocate every time.
      const size_t grown = units < 4096 ? 4096 : units + units / 4;
      data_ = static_cast<uint32_t*>(::operator new(grown * sizeof(uint32_t), kAlign));
      capacity_ = grown;
    }
    return data_;
  }

 private:
  static constexpr std::align_val_t kAlign{64};
  void Release() {
    if (data_ != nullptr) ::operator delete(data_, kAlign);
    data_ = nullptr;
    capacity_ = 0;
  }
  uint32_t* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace

uint32_t* MmadScratchUnits(int which, size_t units) {
  thread_local ScratchBuffer buffers[2];
  return buffers[which].Get(units);
}

std::span<const MmadPath> MmadPathsAvailable() {
  return Paths();
}

const char* MmadPathName(MmadPath path) {
  switch (path) {
    case MmadPath::kScalar:
      return "scalar";
    case MmadPath::kAvx2:
      return "avx2";
    case MmadPath::kAvx512:
      return "avx512";
    case MmadPath::kAvx512Bf16:
      return "avx512bf16";
  }
  return "unknown";
}

void RunMmadOn(MmadPath path, const MmadCall& call) {
  switch (path) {
#if defined(__x86_64__)
    case MmadPath::kAvx2:
      RunMmadAvx2(call);
      return;
    case MmadPath::kAvx512:
      RunMmadAvx512(call);
      return;
    case MmadPath::kAvx512Bf16:
      RunMmadAvx512Bf16(call);
      return;
#endif
    case MmadPath::kScalar:
    default:
      RunMmadScalar(call);
      return;
  }
}

namespace {

// The path RunMmad takes per kind: the last available one, except bf16 on Intel cores, whose
// vdpbf16ps issues at a quarter to half of the f32 FMA rate (measured on Sapphire Rapids: ~45
// against ~90 GFLOP/s per thread), so widening bf16 to f32 and using FMA is faster there; AMD's
// Zen 4/5 run vdpbf16ps at the FMA rate, doubling bf16 throughput.
struct BestPaths {
  MmadPath by_kind[4];
};

BestPaths ChooseBest() {
  BestPaths best{};
  const MmadPath last = Paths().back();
  for (MmadPath& p : best.by_kind)
    p = last;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (last == MmadPath::kAvx512Bf16 && !__builtin_cpu_is("amd")) {
    best.by_kind[static_cast<int>(MmadKind::kBF16)] = MmadPath::kAvx512;
  }
#endif
  return best;
}

}  // namespace

MmadPath MmadDefaultPath(MmadKind kind) {
  static const BestPaths best = ChooseBest();
  return best.by_kind[static_cast<int>(kind)];
}

void RunMmad(const MmadCall& call) {
  RunMmadOn(MmadDefaultPath(call.kind), call);
}

}  // namespace tessera::kernel::detail
