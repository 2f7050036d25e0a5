// The torch peer of `tessera bench` (bench_torch_peer.cc, a module built when libtorch is found
// at configure time) and its loader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

extern "C" {
// Median seconds of one call of `op` ("add", "mul", "sigmoid", "gelu_tanh", "gelu_erf", "fma":
// c + a * b, "cast_bf16": fp32 -> bf16) on `elements` fp32 elements with `threads` threads, over
// `rounds` rounds of ~2 ms each, by the wall clock or, with `thread_cpu_time`, by the calling
// thread's CPU time (for calls too small to use a second thread: on a loaded machine wall time
// mostly measures other processes). 0 on success; otherwise the reason is written to `error`.
int tessera_torch_peer_seconds(const char* op, int64_t elements, int threads, int rounds,
                               int thread_cpu_time, double* seconds, char* error,
                               size_t error_size);
}

namespace tessera::cli {

// The torch op that computes bench case `case_id` ("op_add_f32" -> "add", "fma_f32" -> "fma",
// ...); empty for cases without a torch peer (the row operators).
std::string TorchOpForCase(const std::string& case_id);

// Loads the module once (TESSERA_TORCH_PEER overrides its path); null when it is not available,
// with the reason in TorchPeerUnavailableReason().
using TorchPeerFn = decltype(&tessera_torch_peer_seconds);
TorchPeerFn TorchPeer();
std::string TorchPeerUnavailableReason();

// Median seconds per call of the torch peer of `op`, or nullopt (reason in *why).
std::optional<double> TorchSeconds(const std::string& op, int64_t elements, int threads, int rounds,
                                   bool thread_cpu_time, std::string* why);

}  // namespace tessera::cli
