// Device runtime costs: launch + synchronize of an empty kernel, and Memcpy bandwidth next to a
// plain memcpy measured in the same run. Run with --benchmark_repetitions to get medians.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "tessera/device/block.h"
#include "tessera/device/device.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"

namespace {

using namespace tessera::device;

void EmptyKernel() {}

void SyncAllKernel() {
  SyncAll();
}

void Abort(const tessera::Status& st, benchmark::State& state) {
  state.SkipWithError(st.ToString().c_str());
}

template <void (*Kernel)()>
void LaunchAndSync(benchmark::State& state, const char* profile, uint32_t blocks,
                   bool allow_inline) {
  if (auto st = SetProfile(profile); !st.ok()) return Abort(st, state);
  if (blocks == 0) blocks = WorkerThreads();
  auto stream = Stream::Create();
  const LaunchConfig config{blocks, KernelType::kAiv, "empty", allow_inline};
  for (auto _ : state) {
    tessera::Status st = Launch(config, Kernel, *stream);
    if (st.ok()) st = stream->Synchronize();
    if (!st.ok()) return Abort(st, state);
  }
  state.counters["blocks"] = blocks;
  (void)SetProfile("native");
}

void BM_Launch_Native_1Block_Inline(benchmark::State& s) {
  LaunchAndSync<EmptyKernel>(s, "native", 1, true);
}
void BM_Launch_Native_1Block_Async(benchmark::State& s) {
  LaunchAndSync<EmptyKernel>(s, "native", 1, false);
}
void BM_Launch_Native_WorkerBlocks(benchmark::State& s) {
  LaunchAndSync<EmptyKernel>(s, "native", 0, true);
}
void BM_Launch_Emulated_48Blocks(benchmark::State& s) {
  LaunchAndSync<EmptyKernel>(s, "ascend910b", 48, true);
}
void BM_Launch_Emulated_48Blocks_SyncAll(benchmark::State& s) {
  LaunchAndSync<SyncAllKernel>(s, "ascend910b", 48, true);
}

BENCHMARK(BM_Launch_Native_1Block_Inline)->UseRealTime();
BENCHMARK(BM_Launch_Native_1Block_Async)->UseRealTime();
BENCHMARK(BM_Launch_Native_WorkerBlocks)->UseRealTime();
BENCHMARK(BM_Launch_Emulated_48Blocks)->UseRealTime();
BENCHMARK(BM_Launch_Emulated_48Blocks_SyncAll)->UseRealTime();

constexpr size_t kCopyBytes = size_t{256} << 20;

void BM_Memcpy_Tessera(benchmark::State& state) {
  auto src = Malloc(kCopyBytes);
  auto dst = Malloc(kCopyBytes);
  if (!src.ok() || !dst.ok()) return Abort(src.ok() ? dst.status() : src.status(), state);
  std::memset(*src, 1, kCopyBytes);
  std::memset(*dst, 0, kCopyBytes);
  for (auto _ : state) {
    if (auto st = Memcpy(*dst, kCopyBytes, *src, kCopyBytes, MemcpyKind::kDeviceToDevice);
        !st.ok()) {
      return Abort(st, state);
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kCopyBytes));
  (void)Free(*src);
  (void)Free(*dst);
}

void BM_Memcpy_Plain(benchmark::State& state) {
  std::vector<char> src(kCopyBytes, 1), dst(kCopyBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kCopyBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kCopyBytes));
}

BENCHMARK(BM_Memcpy_Tessera)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Memcpy_Plain)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
