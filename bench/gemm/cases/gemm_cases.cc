#include "gemm_cases.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <random>
#include <string_view>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "../../../src/kernel/cube/mmad_kernels.h"
#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/tessera_nn.h"

extern char** environ;

namespace tessera::bench::gemm {
namespace {

namespace kd = tessera::kernel::detail;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ---- peaks: independent accumulator chains that never leave the registers -------------------

#define TSR_REP24(X) \
  X(0)               \
  X(1)               \
  X(2)               \
  X(3)               \
  X(4)               \
  X(5)               \
  X(6)               \
  X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23)
#define TSR_DECL(i) __m512 acc##i = _mm512_set1_ps(float(i) * 1e-3f);
#define TSR_SUM(i) +_mm512_reduce_add_ps(acc##i)

constexpr long kPeakIterations = 4000000;  // 96 M instructions: ~50 ms at the FMA rate

#if defined(__x86_64__)
// 24 chains cover the FMA latency (4 cycles) times two FMA ports with room to spare.
__attribute__((target("avx512f,fma"), noinline)) double FmaLoop(long iterations) {
  TSR_REP24(TSR_DECL)
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(1e-4f);
  for (long it = 0; it < iterations; ++it) {
#define TSR_FMA(i) acc##i = _mm512_fmadd_ps(acc##i, x, y);
    TSR_REP24(TSR_FMA)
  }
  return 0.0 TSR_REP24(TSR_SUM);
}

// The same on 256-bit vectors, for CPUs without AVX-512: 12 chains (two FMA ports x 5 cycles
// of latency, with room), because AVX2 has 16 ymm registers; 24 chains would spill to the stack
// and measure the spill traffic instead of the FMA rate.
constexpr int kChains256 = 12;
__attribute__((target("avx2,fma"), noinline)) double FmaLoop256(long iterations) {
#define TSR_REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define TSR_DECL256(i) __m256 acc##i = _mm256_set1_ps(float(i) * 1e-3f);
#define TSR_SUM256(i) +_mm256_cvtss_f32(acc##i)
  TSR_REP12(TSR_DECL256)
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(1e-4f);
  for (long it = 0; it < iterations; ++it) {
#define TSR_FMA256(i) acc##i = _mm256_fmadd_ps(acc##i, x, y);
    TSR_REP12(TSR_FMA256)
  }
  return 0.0 TSR_REP12(TSR_SUM256);
}

__attribute__((target("avx512f,avx512bf16"), noinline)) double Bf16Loop(long iterations) {
  TSR_REP24(TSR_DECL)
  const __m512bh x = (__m512bh)_mm512_set1_epi32(0x3F803F80);
  const __m512bh y = (__m512bh)_mm512_set1_epi32(0x38D138D1);
  for (long it = 0; it < iterations; ++it) {
#define TSR_DOT(i) acc##i = _mm512_dpbf16_ps(acc##i, x, y);
    TSR_REP24(TSR_DOT)
  }
  return 0.0 TSR_REP24(TSR_SUM);
}
#endif

bool HasAvx512() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool HasAvx2Fma() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool HasBf16Dot() {
#if defined(__x86_64__)
  return HasAvx512() && __builtin_cpu_supports("avx512bf16");
#else
  return false;
#endif
}

// CPU seconds of the calling thread: single-thread figures on a machine shared with other
// processes would otherwise include the time the thread was preempted.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// GFLOP/s of `threads` threads each running the loop; FMA = 2 FLOP per lane, vdpbf16ps = 4; the
// FMA loop runs on 512-bit vectors where the CPU has AVX-512, else on 256-bit ones.
// Both per CPU second (times the thread count): the machine may be shared with other processes.
double PeakGflops(bool bf16, int threads) {
#if defined(__x86_64__)
  const bool wide = HasAvx512();
  const double flop_per_instruction = bf16 ? 64.0 : wide ? 32.0 : 16.0;
  const double chains = bf16 || wide ? 24.0 : double(kChains256);
  auto loop = [bf16, wide](long iterations) {
    return bf16 ? Bf16Loop(iterations) : wide ? FmaLoop(iterations) : FmaLoop256(iterations);
  };
  if (threads == 1) {
    const double c0 = ThreadCpuSeconds();
    volatile double sink = loop(kPeakIterations);
    (void)sink;
    return kPeakIterations * chains * flop_per_instruction / (ThreadCpuSeconds() - c0) / 1e9;
  }
  std::vector<std::thread> pool;
  std::vector<double> sink(threads);
  const double c0 = ProcessCpuSeconds();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { sink[t] = loop(kPeakIterations); });
  }
  for (std::thread& th : pool)
    th.join();
  const double s = (ProcessCpuSeconds() - c0) / threads;
  return double(threads) * kPeakIterations * chains * flop_per_instruction / s / 1e9;
#else
  (void)bf16;
  (void)threads;
  return 0.0;
#endif
}

struct Peaks {
  double fma1 = 0, fma_all = 0, dot1 = 0, dot_all = 0;
  int threads = 1;
};

// Each peak is the best of a few tries: the loop cannot run faster than the hardware, only slower
// when another process takes the core.
Peaks MeasurePeaks(int threads) {
  Peaks p;
  p.threads = threads;
  if (!HasAvx512() && !HasAvx2Fma()) return p;
  for (int i = 0; i < 3; ++i) {
    p.fma1 = std::max(p.fma1, PeakGflops(false, 1));
    p.fma_all = std::max(p.fma_all, PeakGflops(false, threads));
    if (HasBf16Dot()) {
      p.dot1 = std::max(p.dot1, PeakGflops(true, 1));
      p.dot_all = std::max(p.dot_all, PeakGflops(true, threads));
    }
  }
  // Without a bf16 dot product, bf16 products run as fp32 FMAs on widened operands: no bf16 loop
  // can beat the FMA peak, so that is the bf16 peak.
  if (!HasBf16Dot()) {
    p.dot1 = p.fma1;
    p.dot_all = p.fma_all;
  }
  return p;
}

// ---- random host data ----------------------------------------------------------------------

std::vector<uint8_t> RandomBytes(size_t count, bool bf16, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::vector<uint8_t> out(count * (bf16 ? 2 : 4));
  for (size_t i = 0; i < count; ++i) {
    const float v = uni(rng);
    if (bf16) {
      const uint16_t b = FloatToBfloat16Bits(v);
      std::memcpy(out.data() + i * 2, &b, 2);
    } else {
      std::memcpy(out.data() + i * 4, &v, 4);
    }
  }
  return out;
}

// ---- Mmad alone on an L0 tile ------------------------------------------------------------------

struct MmadFigures {
  double gflops = 0;  // median
  double of_fma = 0;  // median per round of GFLOP/s / the 1-thread FMA loop's GFLOP/s
  double of_dot = 0;  // the same against the bf16 peak (vdpbf16ps, else the FMA loop)
};

// RunMmadOn(path) on an m x n x k tile whose operands stay in cache; each round times enough
// calls for ~20 ms of CPU time right after the peak loops on the same thread.
MmadFigures MmadRounds(kd::MmadKind kind, kd::MmadPath path, uint32_t m, uint32_t n, uint32_t k,
                       int rounds) {
  const bool bf16 = kind == kd::MmadKind::kBF16;
  const uint32_t c0 = bf16 ? 16 : 8;
  const size_t a_elems = size_t((m + 15) / 16 * 16) * ((k + c0 - 1) / c0 * c0);
  const size_t b_elems = size_t((k + c0 - 1) / c0 * c0) * ((n + 15) / 16 * 16);
  const std::vector<uint8_t> a = RandomBytes(a_elems, bf16, 1), b = RandomBytes(b_elems, bf16, 2);
  std::vector<float> c(size_t((m + 15) / 16 * 16) * ((n + 15) / 16 * 16));
  const kd::MmadCall call{kind, a.data(), b.data(), c.data(), nullptr, m, n, k, false};
  kd::RunMmadOn(path, call);
  const double flop = 2.0 * m * n * k;
  const int calls = std::max(1, int(1e9 / flop));  // ~20 ms at 50 GFLOP/s
  std::vector<double> g, of_fma, of_dot;
  for (int r = 0; r < rounds; ++r) {
    const double fma = PeakGflops(false, 1);
    const double dot = HasBf16Dot() ? PeakGflops(true, 1) : fma;
    const double c0 = ThreadCpuSeconds();
    for (int i = 0; i < calls; ++i)
      kd::RunMmadOn(path, call);
    const double gflops = flop * calls / (ThreadCpuSeconds() - c0) / 1e9;
    g.push_back(gflops);
    of_fma.push_back(gflops / fma);
    if (dot > 0) of_dot.push_back(gflops / dot);
  }
  return {Median(g), Median(of_fma), Median(of_dot)};
}

// Seconds of one run: wall clock, and CPU seconds of all threads of the process that ran it.
struct Timing {
  double wall = 0, cpu = 0;
};

// ---- the peer process ----------------------------------------------------------------------

// The peer build this CPU runs: Eigen's kernels are chosen at compile time, so there is one
// build for AVX-512 and one for AVX2 (OpenBLAS picks its kernel at run time in either).
std::string DefaultPeerPath() {
  if (const char* env = std::getenv("TESSERA_GEMM_PEER"); env != nullptr && *env != '\0') {
    return env;
  }
#if defined(TESSERA_GEMM_PEER_PATH) && defined(TESSERA_GEMM_PEER_AVX2_PATH)
  return HasAvx512() ? TESSERA_GEMM_PEER_PATH : TESSERA_GEMM_PEER_AVX2_PATH;
#else
  return "";
#endif
}

class Peer {
 public:
  Peer() = default;
  Peer(const Peer&) = delete;
  Peer& operator=(const Peer&) = delete;
  ~Peer() {
    if (to_ != nullptr) {
      std::fputs("quit\n", to_);
      std::fclose(to_);
    }
    if (from_ != nullptr) std::fclose(from_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

  // Starts `path lib m n k threads` with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed from its
  // environment (OPENBLAS_CORETYPE=coretype when given) and waits for its warm-up.
  Status Start(const std::string& path, const std::string& lib, int64_t m, int64_t n, int64_t k,
               int threads, const std::string& coretype) {
    if (path.empty()) return NotFound("no tessera_gemm_peer program (set TESSERA_GEMM_PEER)");
    std::vector<std::string> env_store;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view v(*e);
      if (v.starts_with("OPENBLAS_CORETYPE=") || v.starts_with("OPENBLAS_L2_SIZE=") ||
          v.starts_with("OPENBLAS_NUM_THREADS=") || v.starts_with("OMP_NUM_THREADS=")) {
        continue;
      }
      env_store.emplace_back(v);
    }
    if (!coretype.empty()) env_store.push_back("OPENBLAS_CORETYPE=" + coretype);
    env_store.push_back("OPENBLAS_NUM_THREADS=" + std::to_string(threads));
    std::vector<char*> envp;
    for (std::string& s : env_store)
      envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> arg_store = {path,
                                          lib,
                                          std::to_string(m),
                                          std::to_string(n),
                                          std::to_string(k),
                                          std::to_string(threads)};
    std::vector<char*> argv;
    for (std::string& s : arg_store)
      argv.push_back(s.data());
    argv.push_back(nullptr);

    int in_pipe[2], out_pipe[2];
    if (pipe2(in_pipe, O_CLOEXEC) != 0) return Internal("pipe failed");
    if (pipe2(out_pipe, O_CLOEXEC) != 0) {
      close(in_pipe[0]);
      close(in_pipe[1]);
      return Internal("pipe failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    const int rc = posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(in_pipe[0]);
    close(out_pipe[1]);
    if (rc != 0) {
      close(in_pipe[1]);
      close(out_pipe[0]);
      pid_ = -1;
      return NotFound("cannot start " + path + ": " + std::strerror(rc));
    }
    to_ = fdopen(in_pipe[1], "w");
    from_ = fdopen(out_pipe[0], "r");
    char line[512];
    if (from_ == nullptr || std::fgets(line, sizeof(line), from_) == nullptr ||
        std::strncmp(line, "ready ", 6) != 0) {
      return NotFound(path + " " + lib + " did not start (not built in?)");
    }
    kernel_ = line + 6;
    while (!kernel_.empty() && (kernel_.back() == '\n' || kernel_.back() == ' '))
      kernel_.pop_back();
    return OkStatus();
  }

  // One C = A * B in the peer; its seconds (wall clock and CPU).
  Result<Timing> Run() {
    if (to_ == nullptr || std::fputs("run\n", to_) < 0 || std::fflush(to_) != 0) {
      return Internal("peer is gone");
    }
    char line[128];
    if (std::fgets(line, sizeof(line), from_) == nullptr) return Internal("peer is gone");
    Timing t;
    if (std::sscanf(line, "%lf %lf", &t.wall, &t.cpu) != 2)
      return Internal("peer said: " + std::string(line));
    return t;
  }

  const std::string& kernel() const { return kernel_; }

 private:
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::string kernel_;
};

// ---- the operators through the C API ---------------------------------------------------------

Status Check(tsrStatus st, const char* what) {
  if (st == TSR_SUCCESS) return OkStatus();
  return Internal(std::string(what) + ": " + tsrGetLastErrorMessage());
}

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (tensor_ != nullptr) tsrDestroyTensor(tensor_);
    if (ptr_ != nullptr) tsrFree(ptr_);
  }
  Status Make(std::vector<int64_t> shape, bool bf16, uint32_t seed) {
    size_t count = 1;
    for (int64_t d : shape)
      count *= size_t(d);
    const std::vector<uint8_t> host = RandomBytes(count, bf16, seed);
    TESSERA_RETURN_IF_ERROR(Check(tsrMalloc(&ptr_, host.size()), "tsrMalloc"));
    TESSERA_RETURN_IF_ERROR(
        Check(tsrMemcpy(ptr_, host.size(), host.data(), host.size(), TSR_MEMCPY_HOST_TO_DEVICE),
              "tsrMemcpy"));
    tensor_ = tsrCreateTensor(shape.data(), shape.size(), nullptr, bf16 ? TSR_BF16 : TSR_FLOAT,
                              TSR_FORMAT_ND, ptr_);
    return tensor_ != nullptr ? OkStatus() : Check(TSR_ERROR_INVALID_ARGUMENT, "tsrCreateTensor");
  }
  tsrTensor* tensor() const { return tensor_; }

 private:
  void* ptr_ = nullptr;
  tsrTensor* tensor_ = nullptr;
};

// y = x1 @ x2 (MatMul), or relu(x1 @ x2) (MatMulAct), on the active profile.
class GemmOp {
 public:
  Status Make(bool bf16, int64_t m, int64_t n, int64_t k) {
    TESSERA_RETURN_IF_ERROR(x1_.Make({m, k}, bf16, 11));
    TESSERA_RETURN_IF_ERROR(x2_.Make({k, n}, bf16, 12));
    TESSERA_RETURN_IF_ERROR(y_.Make({m, n}, bf16, 13));
    return Check(tsrCreateWorkspacePool(&pool_), "tsrCreateWorkspacePool");
  }
  ~GemmOp() {
    if (pool_ != nullptr) tsrDestroyWorkspacePool(pool_);
  }

  // One launch + synchronize (stage 1 is not timed: its plan is cached anyway).
  Result<Timing> Run(const char* profile, bool act) {
    TESSERA_RETURN_IF_ERROR(Check(tsrSetProfile(profile), "tsrSetProfile"));
    const tsrTensor* inputs[3] = {x1_.tensor(), x2_.tensor(), nullptr};
    const tsrTensor* outputs[1] = {y_.tensor()};
    tsrAttr relu{};
    relu.name = "act";
    relu.type = TSR_ATTR_STRING;
    relu.stringValue = "relu";
    uint64_t ws_size = 0;
    tsrOpExecutor* exec = nullptr;
    TESSERA_RETURN_IF_ERROR(
        Check(tsrOpGetWorkspaceSize(act ? "MatMulAct" : "MatMul", inputs, 3, outputs, 1,
                                    act ? &relu : nullptr, act ? 1 : 0, &ws_size, &exec),
              act ? "MatMulAct" : "MatMul"));
    void* ws = nullptr;
    if (Status st = Check(tsrWorkspacePoolGet(pool_, ws_size, &ws), "workspace"); !st.ok()) {
      tsrDestroyExecutor(exec);
      return st;
    }
    const double c0 = ProcessCpuSeconds();
    const auto t0 = Clock::now();
    TESSERA_RETURN_IF_ERROR(Check(tsrOpExecute(ws, ws_size, exec, nullptr), "tsrOpExecute"));
    TESSERA_RETURN_IF_ERROR(Check(tsrSynchronizeStream(nullptr), "tsrSynchronizeStream"));
    return Timing{Seconds(t0), ProcessCpuSeconds() - c0};
  }

 private:
  DeviceBuffer x1_, x2_, y_;
  tsrWorkspacePool* pool_ = nullptr;
};

// ---- the cases -----------------------------------------------------------------------------

struct GemmShape {
  const char* id;
  int64_t m, n, k;
};
constexpr GemmShape kShapes[] = {{"1024", 1024, 1024, 1024},
                                 {"2048", 2048, 2048, 2048},
                                 {"4096", 4096, 4096, 4096},
                                 {"llm", 2048, 11008, 4096}};

int64_t Quick(int64_t v, bool quick) {
  return quick ? std::max<int64_t>(64, v / 8) : v;
}

std::string ShapeTitle(int64_t m, int64_t n, int64_t k) {
  if (m == n && n == k) return std::to_string(m) + "^3";
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// MatMul at one shape: ours on native every round, interleaved with the peers (f32) and the
// ascend910b profile.
Result<std::vector<Row>> MatMulCase(const std::string& id, bool bf16, const GemmShape& shape,
                                    const SuiteOptions& options, const Peaks& peaks) {
  const int64_t m = Quick(shape.m, options.quick), n = Quick(shape.n, options.quick),
                k = Quick(shape.k, options.quick);
  const int threads = peaks.threads;
  GemmOp op;
  TESSERA_RETURN_IF_ERROR(op.Make(bf16, m, n, k));
  TESSERA_RETURN_IF_ERROR(op.Run("native", false).status());  // warm-up
  TESSERA_RETURN_IF_ERROR(op.Run("ascend910b", false).status());
  Row row;
  row.id = id;
  row.title = std::string("MatMul ") + (bf16 ? "bf16 " : "fp32 ") + ShapeTitle(m, n, k);
  row.dtype = bf16 ? "bfloat16" : "float32";
  row.m = m;
  row.n = n;
  row.k = k;
  row.threads = threads;
  std::unique_ptr<Peer> blas, eigen;
  std::string notes;
  const bool peer_runs = HasAvx512() || HasAvx2Fma();
  if (!bf16 && !peer_runs) notes += "peers skipped: tessera_gemm_peer needs AVX2 or AVX-512; ";
  if (!bf16 && peer_runs) {
    const std::string path = options.peer_path.empty() ? DefaultPeerPath() : options.peer_path;
    blas = std::make_unique<Peer>();
    if (Status st = blas->Start(path, "openblas", m, n, k, threads, options.openblas_coretype);
        !st.ok()) {
      notes += "OpenBLAS: " + std::string(st.message()) + "; ";
      blas.reset();
    } else {
      notes += "peer kernel: " + blas->kernel() + "; ";
    }
    eigen = std::make_unique<Peer>();
    if (Status st = eigen->Start(path, "eigen", m, n, k, threads, ""); !st.ok()) {
      notes += "Eigen: " + std::string(st.message()) + "; ";
      eigen.reset();
    }
  }
  // The time of a run: CPU seconds / threads (the machine may be shared), or wall clock.
  auto secs = [&](const Timing& t) { return options.wall_clock ? t.wall : t.cpu / threads; };
  std::vector<double> ours, r_blas, r_eigen, r_910b;
  for (int r = 0; r < options.rounds; ++r) {
    TESSERA_ASSIGN_OR_RETURN(const Timing t, op.Run("native", false));
    const double mine = secs(t);
    ours.push_back(mine);
    if (blas) {
      TESSERA_ASSIGN_OR_RETURN(const Timing tb, blas->Run());
      r_blas.push_back(secs(tb) / mine);
    }
    if (eigen) {
      TESSERA_ASSIGN_OR_RETURN(const Timing te, eigen->Run());
      r_eigen.push_back(secs(te) / mine);
    }
    TESSERA_ASSIGN_OR_RETURN(const Timing t910, op.Run("ascend910b", false));
    r_910b.push_back(secs(t910) / mine);
  }
  TESSERA_RETURN_IF_ERROR(Check(tsrSetProfile("native"), "tsrSetProfile"));
  const double flop = 2.0 * double(m) * double(n) * double(k);
  row.gflops = flop / Median(ours) / 1e9;
  if (blas) row.ratios.emplace_back("x OpenBLAS", Median(r_blas));
  if (eigen) row.ratios.emplace_back("x Eigen", Median(r_eigen));
  row.ratios.emplace_back("910b/native", Median(r_910b));
  if (bf16 && peaks.dot_all > 0)
    row.ratios.emplace_back("of bf16 peak", row.gflops / peaks.dot_all);
  if (peaks.fma_all > 0) row.ratios.emplace_back("of fp32 peak", row.gflops / peaks.fma_all);
  if (!notes.empty()) notes.resize(notes.size() - 2);
  row.note = notes;
  return std::vector<Row>{row};
}

// MatMulAct (relu on the AIVs of the MIX group) against MatMul at the same shape.
Result<std::vector<Row>> ActCase(const std::string& id, bool bf16, int64_t size,
                                 const SuiteOptions& options, const Peaks& peaks) {
  const int64_t s = Quick(size, options.quick);
  GemmOp op;
  TESSERA_RETURN_IF_ERROR(op.Make(bf16, s, s, s));
  TESSERA_RETURN_IF_ERROR(op.Run("native", true).status());
  TESSERA_RETURN_IF_ERROR(op.Run("native", false).status());
  const int threads = peaks.threads;
  auto secs = [&](const Timing& t) { return options.wall_clock ? t.wall : t.cpu / threads; };
  std::vector<double> act, ratio;
  for (int r = 0; r < options.rounds; ++r) {
    TESSERA_ASSIGN_OR_RETURN(const Timing ta, op.Run("native", true));
    TESSERA_ASSIGN_OR_RETURN(const Timing tm, op.Run("native", false));
    act.push_back(secs(ta));
    ratio.push_back(secs(ta) / secs(tm));
  }
  Row row;
  row.id = id;
  row.title = std::string("MatMulAct relu ") + (bf16 ? "bf16 " : "fp32 ") + ShapeTitle(s, s, s);
  row.dtype = bf16 ? "bfloat16" : "float32";
  row.m = row.n = row.k = s;
  row.threads = peaks.threads;
  row.gflops = 2.0 * double(s) * s * s / Median(act) / 1e9;
  row.ratios.emplace_back("time/MatMul", Median(ratio));
  return std::vector<Row>{row};
}

Result<std::vector<Row>> MmadCase(const std::string& id, bool bf16, const SuiteOptions& options) {
  // L0-sized tiles of ascend910b: fp32 A 128x128 (64 KB), B 128x128 (64 KB); bf16 A 128x128
  // (32 KB), B 128x256 (64 KB); C 64 / 128 KB.
  const uint32_t m = 128, n = bf16 ? 256 : 128, k = 128;
  const kd::MmadKind kind = bf16 ? kd::MmadKind::kBF16 : kd::MmadKind::kF32;
  std::vector<Row> rows;
  std::vector<kd::MmadPath> paths{kd::MmadDefaultPath(kind)};
  // bf16: also the other SIMD path (vdpbf16ps or widening), whichever RunMmad does not take.
  if (bf16) {
    for (kd::MmadPath p : kd::MmadPathsAvailable()) {
      if (p != kd::MmadPath::kScalar && p != paths[0]) paths.push_back(p);
    }
  }
  for (kd::MmadPath path : paths) {
    Row row;
    row.id = id;
    row.title = std::string("Mmad ") + (bf16 ? "bf16 " : "fp32 ") + ShapeTitle(m, n, k) + " " +
                kd::MmadPathName(path) + (path == paths[0] ? " (default)" : "");
    row.dtype = bf16 ? "bfloat16" : "float32";
    row.m = m;
    row.n = n;
    row.k = k;
    row.threads = 1;
    const MmadFigures f = MmadRounds(kind, path, m, n, k, std::max(5, options.rounds));
    row.gflops = f.gflops;
    if (bf16 && f.of_dot > 0) row.ratios.emplace_back("of bf16 peak", f.of_dot);
    row.ratios.emplace_back("of fp32 peak", f.of_fma);
    rows.push_back(row);
  }
  return rows;
}

std::vector<Row> PeakRows(const Peaks& p) {
  std::vector<Row> rows;
  auto add = [&](const char* id, const char* title, int threads, double g) {
    Row r;
    r.id = id;
    r.title = title;
    r.dtype = "";
    r.threads = threads;
    r.gflops = g;
    rows.push_back(r);
  };
  add("peak_fma_f32", "FMA peak fp32, 1 thread", 1, p.fma1);
  add("peak_fma_f32", "FMA peak fp32, all threads", p.threads, p.fma_all);
  if (HasBf16Dot() && p.dot1 > 0) {
    add("peak_dpbf16", "vdpbf16ps peak, 1 thread", 1, p.dot1);
    add("peak_dpbf16", "vdpbf16ps peak, all threads", p.threads, p.dot_all);
  }
  return rows;
}

}  // namespace

std::vector<std::string> CaseIds() {
  std::vector<std::string> ids = {"peak_fma_f32", "peak_dpbf16", "mmad_f32_l0", "mmad_bf16_l0"};
  for (const char* dt : {"f32", "bf16"}) {
    for (const GemmShape& s : kShapes)
      ids.push_back(std::string("matmul_") + dt + "_" + s.id);
  }
  ids.push_back("matmul_act_f32_2048");
  ids.push_back("matmul_act_bf16_2048");
  return ids;
}

Result<std::vector<Row>> RunSuite(const SuiteOptions& options) {
  if (options.rounds < 1) return InvalidArgument("gemm bench: rounds must be at least 1");
  std::vector<std::string> ids;
  for (const std::string& id : CaseIds()) {
    if (id.find(options.filter) != std::string::npos) ids.push_back(id);
  }
  if (ids.empty()) {
    std::string all;
    for (const std::string& id : CaseIds())
      all += " " + id;
    return InvalidArgument("gemm bench: filter '" + options.filter +
                           "' matches no case (ids:" + all + ")");
  }
  TESSERA_RETURN_IF_ERROR(Check(tsrSetProfile("native"), "tsrSetProfile"));
  const Peaks peaks = MeasurePeaks(int(device::WorkerThreads()));
  std::vector<Row> rows;
  for (const Row& r : PeakRows(peaks)) {
    if (r.id.find(options.filter) != std::string::npos) rows.push_back(r);
  }
  auto append = [&](Result<std::vector<Row>> more) -> Status {
    TESSERA_RETURN_IF_ERROR(more.status());
    rows.insert(rows.end(), more->begin(), more->end());
    return OkStatus();
  };
  for (const std::string& id : ids) {
    if (id == "mmad_f32_l0" || id == "mmad_bf16_l0") {
      if (!HasAvx512() && !HasAvx2Fma()) continue;
      TESSERA_RETURN_IF_ERROR(append(MmadCase(id, id == "mmad_bf16_l0", options)));
    } else if (id.starts_with("matmul_act_")) {
      TESSERA_RETURN_IF_ERROR(
          append(ActCase(id, id == "matmul_act_bf16_2048", 2048, options, peaks)));
    } else if (id.starts_with("matmul_")) {
      const bool bf16 = id.starts_with("matmul_bf16_");
      for (const GemmShape& s : kShapes) {
        if (id == std::string("matmul_") + (bf16 ? "bf16_" : "f32_") + s.id) {
          TESSERA_RETURN_IF_ERROR(append(MatMulCase(id, bf16, s, options, peaks)));
        }
      }
    }
  }
  return rows;
}

void PrintTable(const std::vector<Row>& rows, const SuiteOptions& options) {
  std::printf("tessera bench --gemm: %u worker threads, %d interleaved rounds, medians, %s%s\n",
              device::WorkerThreads(), options.rounds,
              options.wall_clock ? "wall-clock time" : "CPU time / threads",
              options.quick ? ", quick sizes" : "");
  std::printf("%-44s %9s  %s\n", "case", "GFLOP/s", "ratios (same run)");
  for (const Row& r : rows) {
    std::printf("%-44s %9.1f ", r.title.c_str(), r.gflops);
    for (const auto& [label, value] : r.ratios)
      std::printf(" %s %.2f", label.c_str(), value);
    std::printf("\n");
    if (!r.note.empty()) std::printf("  (%s)\n", r.note.c_str());
  }
  std::printf(
      "x OpenBLAS / x Eigen: peer time / MatMul time (> 1 = tessera faster); 910b/native: the same "
      "MatMul on the\nemulated ascend910b profile / native; of ... peak: GFLOP/s / the in-register "
      "loop's GFLOP/s on as many threads.\n");
}

}  // namespace tessera::bench::gemm
