// Loading the torch peer module of `tessera bench` (see bench_torch.h).
#include "bench_torch.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace tessera::cli {
namespace {

struct Loaded {
  TorchPeerFn fn = nullptr;
  std::string reason;
};

std::string ModulePath() {
  if (const char* env = std::getenv("TESSERA_TORCH_PEER"); env != nullptr && env[0] != '\0')
    return env;
#ifdef TESSERA_TORCH_PEER_PATH
  if (std::error_code ec; std::filesystem::exists(TESSERA_TORCH_PEER_PATH, ec))
    return TESSERA_TORCH_PEER_PATH;
#endif
  // Installed: next to the executable.
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : (self.parent_path() / "libtessera_torch_peer.so").string();
}

const Loaded& Load() {
  static const Loaded loaded = [] {
    Loaded l;
    const std::string path = ModulePath();
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) {
      l.reason = "libtorch was not found when tessera was configured (no torch peer module)";
      return l;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      l.reason = std::string("cannot load ") + path + ": " + dlerror();
      return l;
    }
    l.fn = reinterpret_cast<TorchPeerFn>(dlsym(handle, "tessera_torch_peer_seconds"));
    if (l.fn == nullptr) l.reason = path + " exports no tessera_torch_peer_seconds";
    return l;
  }();
  return loaded;
}

bool Has(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

std::string TorchOpForCase(const std::string& id) {
  if (Has(id, "cast") && Has(id, "bf16")) return "cast_bf16";
  if (Has(id, "fma")) return "fma";
  if (Has(id, "gelu")) return Has(id, "erf") ? "gelu_erf" : "gelu_tanh";
  if (Has(id, "sigmoid")) return "sigmoid";
  if (Has(id, "norm") || Has(id, "softmax") || Has(id, "swiglu")) return "";
  if (Has(id, "add")) return "add";
  if (Has(id, "mul")) return "mul";
  return "";
}

TorchPeerFn TorchPeer() {
  return Load().fn;
}

std::string TorchPeerUnavailableReason() {
  return Load().reason;
}

std::optional<double> TorchSeconds(const std::string& op, int64_t elements, int threads, int rounds,
                                   bool thread_cpu_time, std::string* why) {
  TorchPeerFn fn = TorchPeer();
  if (fn == nullptr) {
    *why = TorchPeerUnavailableReason();
    return std::nullopt;
  }
  double seconds = 0;
  char error[512] = {};
  if (fn(op.c_str(), elements, threads, rounds, thread_cpu_time ? 1 : 0, &seconds, error,
         sizeof(error)) != 0) {
    *why = error;
    return std::nullopt;
  }
  return seconds;
}

}  // namespace tessera::cli
