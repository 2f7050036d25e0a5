// Mmad microkernels: C (L0C, Nz 16x16 fractals) = / += A (L0A, Zz) x B (L0B, Zn) over the fractal
// layouts of the 2201 NPU, with run-time CPU dispatch. Internal to tessera_kernel; the public entry
// point is cube-api's `Mmad`, which validates the sizes before calling RunMmad.
#pragma once

#include <cstdint>
#include <span>

namespace tessera::kernel::detail {

// A and B element type; C is f32, s32 for kS8.
enum class MmadKind : uint8_t { kF32, kF16, kBF16, kS8 };

struct MmadCall {
  MmadKind kind;
  const void* a;     // L0A (Zz, or ND 1 x k when m == 1)
  const void* b;     // L0B (Zn)
  void* c;           // L0C (Nz, 16x16 fractals, f32 or s32)
  const void* bias;  // n values (f32, s32 for kS8) from the bias table, or nullptr
  uint32_t m, n, k;  // valid sizes, 1..4095 each (the caller validated them)
  bool accumulate;   // true: C += A*B; false: C = A*B (+ bias when bias != nullptr)
};

// Runs the fastest path the CPU supports. Never fails; touches only the valid m x n region of C
// (padding rows/columns of A, B and C are neither used nor written). Products of f16/bf16 values
// are exact in f32; the accumulation order is unspecified (as on the NPU). The bf16 path through
// AVX512_BF16 `vdpbf16ps` flushes f32/bf16 denormal inputs and outputs of each step to zero.
void RunMmad(const MmadCall& call);

// Implementations, best last. kScalar is portable; the others need the CPU features named.
enum class MmadPath : uint8_t {
  kScalar,      // plain C++ loops (any CPU)
  kAvx2,        // AVX2+FMA+F16C: 6 x 16 blocks; f16/bf16 widened to f32, s8 via vpmaddwd (exact)
  kAvx512,      // AVX512F+BW: f32 FMA, f16/bf16 widened to f32, s8 via vpmaddwd (exact)
  kAvx512Bf16,  // + AVX512_BF16 and AVX512_VNNI: bf16 via vdpbf16ps, s8 via vpdpwssd (exact)
};

// The paths this CPU can run, kScalar first.
std::span<const MmadPath> MmadPathsAvailable();
// The path RunMmad takes for `kind`: the last available one, except bf16 on CPUs whose
// vdpbf16ps is slower than two f32 FMAs (Intel), which widen bf16 to f32 on kAvx512.
MmadPath MmadDefaultPath(MmadKind kind);
const char* MmadPathName(MmadPath path);
// Runs `call` on `path` (which must be one of MmadPathsAvailable()); for tests and benchmarks.
void RunMmadOn(MmadPath path, const MmadCall& call);

}  // namespace tessera::kernel::detail
