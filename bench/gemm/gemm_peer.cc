// The GEMM peers of the gemm benchmarks, in a process of their own: OpenBLAS reads
// OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE when it loads, so the parent starts this program with
// both removed from the environment (the conservative core this machine's environment forces
// would make the peer look slow), and OpenBLAS/Eigen are linked into this program only.
//
//   tessera_gemm_peer <openblas|eigen> M N K THREADS
// Fills row-major f32 A[M x K], B[K x N] with random values, runs one warm-up C = A * B, prints
// "ready <kernel>" (OpenBLAS: openblas_get_corename(); Eigen: its SIMD instruction sets), then for
// each line "run" on stdin runs one C = A * B and prints its wall-clock and CPU seconds (all
// threads); exits on "quit" or EOF.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#if TESSERA_PEER_HAVE_OPENBLAS
#include <cblas.h>
extern "C" char* openblas_get_corename(void);
#endif
#if TESSERA_PEER_HAVE_EIGEN
#define EIGEN_USE_THREADS
#include <unsupported/Eigen/CXX11/Tensor>
#endif

namespace {

// CPU seconds of all threads of this process (the machine may be shared: wall time includes the
// time other processes took).
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

int Usage() {
  std::fprintf(stderr, "usage: tessera_gemm_peer <openblas|eigen> M N K THREADS\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) return Usage();
  const std::string lib = argv[1];
  const long m = std::atol(argv[2]), n = std::atol(argv[3]), k = std::atol(argv[4]);
  const int threads = std::atoi(argv[5]);
  if (m <= 0 || n <= 0 || k <= 0 || threads <= 0) return Usage();
  std::vector<float> a(size_t(m) * k), b(size_t(k) * n), c(size_t(m) * n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (float& x : a)
    x = uni(rng);
  for (float& x : b)
    x = uni(rng);

  std::string kernel;
  std::function<void()> gemm;
#if TESSERA_PEER_HAVE_OPENBLAS
  if (lib == "openblas") {
    openblas_set_num_threads(threads);
    kernel = std::string("openblas ") + openblas_get_corename();
    gemm = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0f, a.data(),
                  int(k), b.data(), int(n), 0.0f, c.data(), int(n));
    };
  }
#endif
#if TESSERA_PEER_HAVE_EIGEN
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  using Map = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  Map ta(a.data(), m, k), tb(b.data(), k, n), tc(c.data(), m, n);
  const Eigen::array<Eigen::IndexPair<int>, 1> dims = {Eigen::IndexPair<int>(1, 0)};
  if (lib == "eigen") {
    kernel = std::string("eigen ") + Eigen::SimdInstructionSetsInUse();
    gemm = [&] { tc.device(device) = ta.contract(tb, dims); };
  }
#endif
  if (!gemm) {
    std::fprintf(stderr, "tessera_gemm_peer: %s is not built in\n", lib.c_str());
    return 3;
  }
  gemm();
  std::printf("ready %s\n", kernel.c_str());
  std::fflush(stdout);
  char line[64];
  while (std::fgets(line, sizeof(line), stdin) != nullptr) {
    if (std::strncmp(line, "run", 3) != 0) break;
    const double c0 = ProcessCpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    gemm();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.9f %.9f\n", s, ProcessCpuSeconds() - c0);
    std::fflush(stdout);
  }
  return 0;
}
