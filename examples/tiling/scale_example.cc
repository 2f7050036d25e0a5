// Runs the specialised scale kernel through its KernelTable and prints what happened.
#include <cstdio>
#include <vector>

#include "scale_kernel.h"

int main() {
  using namespace scale_example;
  std::printf("kernel instances: %zu\n", ScaleKernelTable::kInstances.size());
  for (const auto& inst : ScaleKernelTable::kInstances) {
    std::printf("  key %llu = {UseScale: %lld, BlockM: %lld}\n",
                static_cast<unsigned long long>(inst.key), static_cast<long long>(inst.values[0]),
                static_cast<long long>(inst.values[1]));
  }

  const int64_t n = 1000;
  std::vector<float> in(n), out(n);
  for (int64_t i = 0; i < n; ++i)
    in[i] = static_cast<float>(i);

  const ScalePlan plan = ScaleTilingFunc(n, 2.0f, 0.5f);
  const std::vector<uint8_t> tiling = tessera::tiling::SerializeTiling(plan.data);
  std::printf("tiling: %s\n", tessera::tiling::TilingToJson(plan.data).c_str());
  tessera::Status s = ScaleKernelTable::Launch(plan.key, in.data(), out.data(), n, tiling.data());
  std::printf("launch: %s, out[999] = %g\n", s.ToString().c_str(), out[999]);

  // A key no instance exists for is refused before anything runs.
  s = ScaleKernelTable::Launch({{"UseScale", 1}, {"BlockM", 64}}, in.data(), out.data(), n,
                               tiling.data());
  std::printf("invalid key: %s\n", s.ToString().c_str());
  return out[999] == 999.0f * 2.0f + 0.5f ? 0 : 1;
}
