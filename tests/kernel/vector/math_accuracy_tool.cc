// tessera_math_accuracy: the accuracy table of docs/kernel_vector.md. Runs every math function
// of the shared library over every finite fp32 bit pattern (or every `--stride`-th one) and
// every finite bfloat16 and half value, on the best Highway target of this CPU, against long
// double references, and prints the max ulp error per function as a Markdown table.
// Not a ctest: all 2^32 patterns take minutes per function (math_accuracy_test.cc runs a strided
// walk instead).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <hwy/targets.h>

#include "math_reference.h"

int main(int argc, char** argv) {
  using namespace tessera::kernel::testing;
  uint64_t stride = 1;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--stride") == 0 && i + 1 < argc) {
      stride = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr, "usage: %s [--stride N] [--threads N]\n", argv[0]);
      return 2;
    }
  }
  if (stride == 0 || threads == 0) {
    std::fprintf(stderr, "--stride and --threads must be at least 1\n");
    return 2;
  }
  const int64_t supported = hwy::SupportedTargets();
  const char* target = "SCALAR";  // the best of the targets tessera_kernel compiles
  for (int64_t t : {int64_t{HWY_AVX3}, int64_t{HWY_AVX2}, int64_t{HWY_SSE4}}) {
    if (supported & t) {
      target = hwy::TargetName(t);
      break;
    }
  }
  std::printf("target %s, fp32 bit patterns 0..2^32-1 step %llu, %u threads\n\n", target,
              static_cast<unsigned long long>(stride), threads);
  std::printf(
      "| function | fp32 max ulp | at x = | fp32, normal results | at x = | bf16 max ulp | f16 max "
      "ulp |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const MathFunction& fn : MathFunctions()) {
    constexpr uint64_t kAll = uint64_t{1} << 32;
    // Whole multiples of the stride per thread, so the walk visits the same patterns for any
    // thread count.
    const uint64_t steps = (kAll + stride - 1) / stride;
    std::vector<Worst> worst(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const uint64_t b = steps * t / threads * stride;
        const uint64_t e = std::min(kAll, steps * (t + 1) / threads * stride);
        worst[t] = SweepF32(fn, b, e, stride);
      });
    }
    for (std::thread& th : pool)
      th.join();
    Worst w;
    for (const Worst& x : worst)
      w.Merge(x);
    const Worst b = Sweep16(fn, tessera::kernel::vec::DType::kBF16);
    const Worst h = Sweep16(fn, tessera::kernel::vec::DType::kF16);
    std::printf("| %s | %.3f | %.9g | %.3f | %.9g | %.3f | %.3f |\n", fn.name, w.ulp, w.at,
                w.ulp_normal, w.at_normal, b.ulp, h.ulp);
    std::fflush(stdout);
  }
  return 0;
}
