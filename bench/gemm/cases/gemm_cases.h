// The GEMM benchmark cases of issue #11 (item 9), shared by tessera_gemm_bench (Google Benchmark)
// and `tessera bench --gemm`.
//
// Every figure is a ratio measured in the same run, round by round (the machine's speed drifts):
//   - peaks: an in-register FMA loop (f32) and a vdpbf16ps loop (bf16) on 1 thread and on every
//     worker thread - the ceilings of this CPU;
//   - Mmad: the cube microkernel (RunMmad) alone on an L0-sized tile, as a fraction of the peak;
//   - MatMul / MatMulAct operators (the built-in package, native profile) against OpenBLAS sgemm
//     and Eigen's tensor contraction, which run in a child process (tessera_gemm_peer) so that
//     OpenBLAS starts without the environment's OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, and against
//     the same operator on the emulated ascend910b profile.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::bench::gemm {

struct SuiteOptions {
  int rounds = 3;      // interleaved rounds per case; medians over them
  std::string filter;  // run the cases whose id contains this text (empty: all)
  bool quick = false;  // sizes divided by 8 (at least 64): checks that every case runs
  // The peer program; empty: $TESSERA_GEMM_PEER, else the one built next to this library.
  std::string peer_path;
  // OPENBLAS_CORETYPE for the peer; empty: unset, so OpenBLAS detects the CPU itself.
  std::string openblas_coretype;
  // Time runs by the wall clock. Default: CPU seconds of the process that ran (all its threads)
  // divided by the thread count, which stays meaningful on a machine shared with other processes;
  // the single-thread figures (peaks, Mmad) always use CPU time.
  bool wall_clock = false;
};

// One line of the report: what ran, its throughput, and ratios against the references.
struct Row {
  std::string id;     // case id, e.g. "matmul_f32_2048"
  std::string title;  // e.g. "MatMul fp32 2048^3"
  std::string dtype;
  int64_t m = 0, n = 0, k = 0;  // 0 for the peak loops
  int threads = 0;
  double gflops = 0;  // ours, from the median time
  // (label, value): e.g. ("x OpenBLAS", 0.93) = OpenBLAS time / our time, median per round.
  std::vector<std::pair<std::string, double>> ratios;
  std::string note;  // e.g. the peer's kernel, or why a peer is missing
};

// Ids of all cases in report order.
std::vector<std::string> CaseIds();

// Runs the cases matching options.filter (the peaks are always measured first, since the other
// cases are expressed against them). InvalidArgument when the filter matches nothing or rounds < 1.
Result<std::vector<Row>> RunSuite(const SuiteOptions& options);

// Prints rows as an aligned table.
void PrintTable(const std::vector<Row>& rows, const SuiteOptions& options);

}  // namespace tessera::bench::gemm
