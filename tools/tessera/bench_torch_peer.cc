// The torch peer of `tessera bench`: libtorch on the CPU with the same thread count, as a module
// the CLI loads only when it benchmarks (no other command pays libtorch's load time). Its one
// entry point is declared in bench_torch.h.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "bench_torch.h"

namespace {

// Seconds by the wall clock, or by the calling thread's CPU time.
double Now(bool thread_cpu_time) {
  if (thread_cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The call `op` names on `elements` fp32 elements, outputs preallocated (as tessera's are).
struct TorchCall {
  torch::Tensor a, b, c, out;
  std::string op;

  TorchCall(const std::string& name, int64_t elements) : op(name) {
    a = torch::rand({elements});
    b = torch::rand({elements});
    c = torch::rand({elements});
    out = op == "cast_bf16" ? torch::empty({elements}, torch::kBFloat16) : torch::empty({elements});
  }
  bool Known() const {
    return op == "add" || op == "mul" || op == "sigmoid" || op == "gelu_tanh" || op == "gelu_erf" ||
           op == "fma" || op == "cast_bf16";
  }
  void Run() {
    if (op == "add") {
      torch::add_out(out, a, b);
    } else if (op == "mul") {
      torch::mul_out(out, a, b);
    } else if (op == "sigmoid") {
      torch::sigmoid_out(out, a);
    } else if (op == "gelu_tanh") {
      torch::gelu_out(out, a, "tanh");
    } else if (op == "gelu_erf") {
      torch::gelu_out(out, a, "none");
    } else if (op == "fma") {
      torch::addcmul_out(out, c, a, b);  // c + a * b
    } else {
      out.copy_(a);  // fp32 -> bf16, round to nearest even
    }
  }
};

}  // namespace

extern "C" int tessera_torch_peer_seconds(const char* op, int64_t elements, int threads, int rounds,
                                          int thread_cpu_time, double* seconds, char* error,
                                          size_t error_size) {
  const auto fail = [&](const std::string& why) {
    if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", why.c_str());
    return 1;
  };
  if (op == nullptr || seconds == nullptr || elements <= 0 || threads <= 0 || rounds <= 0)
    return fail("torch peer: bad arguments");
  try {
    const bool cpu = thread_cpu_time != 0;
    at::set_num_threads(threads);
    TorchCall call(op, elements);
    if (!call.Known()) return fail(std::string("torch peer: unknown op '") + op + "'");
    // Calls per round: enough for ~2 ms, so a round of a tiny call is not one clock tick.
    call.Run();
    const double t0 = Now(cpu);
    call.Run();
    const double once = std::max(Now(cpu) - t0, 1e-9);
    const int64_t per_round = std::clamp<int64_t>(static_cast<int64_t>(2e-3 / once), 1, 100000);
    std::vector<double> times;
    for (int r = 0; r < rounds; ++r) {
      const double start = Now(cpu);
      for (int64_t i = 0; i < per_round; ++i)
        call.Run();
      times.push_back((Now(cpu) - start) / static_cast<double>(per_round));
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    *seconds = times[times.size() / 2];
    return 0;
  } catch (const std::exception& e) {
    return fail(std::string("torch peer: ") + e.what());
  }
}
