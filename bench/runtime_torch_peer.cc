// The peer of BM_TwoStageAdd1024 in the same run: torch.add on 1024 floats through libtorch (CPU,
// the same two threads tessera's native profile uses), output preallocated as tessera's is.
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <torch/torch.h>

namespace {

void BM_TorchAdd1024(benchmark::State& state) {
  at::set_num_threads(2);
  const torch::Tensor a = torch::rand({1024});
  const torch::Tensor b = torch::rand({1024});
  torch::Tensor out = torch::empty({1024});
  for (auto _ : state) {
    torch::add_out(out, a, b);
    benchmark::DoNotOptimize(out.data_ptr<float>());
  }
}

BENCHMARK(BM_TorchAdd1024)->UseRealTime();

}  // namespace
