// Which AI-core units an Ascend C sample's kernels run on, decided as the vendor's toolchain
// decides a kernel's type, for the per-class totals of `tessera ascendc-check`.
//
// Per kernel (a `__global__` function in the sample's sources, comments removed):
//   1. its declaration's attribute: `__vector__` -> vector (AIV), `__cube__` -> cube (AIC),
//      `__mix__(a, b)` -> mix;
//   2. else `KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_...)` in its body: AIV_ONLY / MIX_AIV_1_0 ->
//      vector, AIC_ONLY / MIX_AIC_1_0 -> cube, MIX_AIC_1_1 / MIX_AIC_1_2 -> mix;
//   3. else (a plain `__aicore__` kernel) the toolchain infers it from the APIs the sample uses:
//      a Matmul object (`Matmul<`, `REGIST_MATMUL_OBJ`) is mix (the AIV drives the AIC through
//      KFC) unless `ASCENDC_CUBE_ONLY` is defined, then cube; other cube APIs (Mmad, LoadData,
//      Fixpipe, the A1 / B1 / A2 / B2 / C1 / C2 / CO1 / CO2 positions) are cube, or mix when the
//      sample also uses the VECIN / VECOUT / VECCALC positions; no cube API is vector.
// The sample is vector or cube when all its kernels are; otherwise (a mix kernel, or vector and
// cube kernels side by side) mix. A sample with no `__global__` kernel is inferred as in 3.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tessera::cli {

// A sample's class and how it was decided.
struct CoresClass {
  std::string cores;      // "vector", "cube" or "mix"
  bool inferred = false;  // rule 3 decided for some kernel (or the sample has no kernel)
};

// The class of a sample whose source files hold `sources`.
CoresClass ClassifyCores(const std::vector<std::string>& sources);

// `source` without its // and /* */ comments (string and character literals kept intact).
std::string StripComments(std::string_view source);

}  // namespace tessera::cli
