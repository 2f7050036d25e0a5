// Printing from kernels: per-block buffers flushed in block order at the end of the launch.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "block_state.h"
#include "debug_internal.h"
#include "launch_job.h"

namespace tessera::device {
namespace detail {
namespace {

size_t EnvBytes(const char* name, size_t fallback) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(env, &end, 10);
  return end && *end == '\0' ? static_cast<size_t>(v) : fallback;
}

std::atomic<size_t> g_block_limit{EnvBytes("TESSERA_PRINT_BLOCK_LIMIT", PrintLimits{}.block_bytes)};
std::atomic<size_t> g_launch_limit{
    EnvBytes("TESSERA_PRINT_LAUNCH_LIMIT", PrintLimits{}.launch_bytes)};

// Serialises whole launches' output (and host-side prints) on stdout.
std::mutex& StdoutMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}

void AppendPrefixed(std::string& out, const std::string& prefix, std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    out += prefix;
    out.append(text.substr(pos, end - pos));
    out += '\n';
    pos = end + 1;
  }
}

}  // namespace

LaunchPrints::LaunchPrints(uint32_t blocks)
    : limits_{g_block_limit.load(std::memory_order_relaxed),
              g_launch_limit.load(std::memory_order_relaxed)},
      entries_(blocks) {}

void LaunchPrints::Append(uint32_t fiber, std::string_view text) {
  Entry& e = entries_[fiber];
  size_t n = text.size();
  if (e.text.size() + n > limits_.block_bytes) {
    const size_t room = limits_.block_bytes - std::min(e.text.size(), limits_.block_bytes);
    e.cut_by_block += n - room;
    n = room;
  }
  if (n == 0) return;
  const uint64_t before = launch_bytes_.fetch_add(n, std::memory_order_relaxed);
  if (before + n > limits_.launch_bytes) {
    const size_t room = before >= limits_.launch_bytes ? 0 : limits_.launch_bytes - before;
    e.cut_by_launch += n - room;
    n = room;
  }
  e.text.append(text.substr(0, n));
}

void LaunchPrints::Flush(const LaunchJob& job) const {
  std::string out;
  for (uint32_t f = 0; f < entries_.size(); ++f) {
    const Entry& e = entries_[f];
    if (e.text.empty() && e.cut_by_block == 0 && e.cut_by_launch == 0) continue;
    const std::string prefix = "[" + job.name() + " " + job.BlockTag(f) + "] ";
    AppendPrefixed(out, prefix, e.text);
    if (e.cut_by_block > 0) {
      AppendPrefixed(out, prefix,
                     "[output cut: " + std::to_string(e.cut_by_block) +
                         " more bytes over the per-block limit of " +
                         std::to_string(limits_.block_bytes) +
                         " bytes (TESSERA_PRINT_BLOCK_LIMIT)]");
    }
    if (e.cut_by_launch > 0) {
      AppendPrefixed(out, prefix,
                     "[output cut: " + std::to_string(e.cut_by_launch) +
                         " more bytes over the per-launch limit of " +
                         std::to_string(limits_.launch_bytes) +
                         " bytes (TESSERA_PRINT_LAUNCH_LIMIT)]");
    }
  }
  std::lock_guard<std::mutex> lock(StdoutMutex());
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

}  // namespace detail

void KernelPrint(std::string_view text) {
  BlockContext* ctx = detail::CurrentBlockContext();
  if (ctx == nullptr) {
    std::lock_guard<std::mutex> lock(detail::StdoutMutex());
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  ctx->launch->Prints().Append(ctx->fiber_index, text);
}

void KernelPrintf(const char* format, ...) {
  char small[512];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof(small), format, args);
  va_end(args);
  if (n < 0) {
    va_end(again);
    return;
  }
  if (static_cast<size_t>(n) < sizeof(small)) {
    va_end(again);
    KernelPrint(std::string_view(small, static_cast<size_t>(n)));
    return;
  }
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(big.data(), big.size(), format, again);
  va_end(again);
  big.resize(static_cast<size_t>(n));
  KernelPrint(big);
}

void SetPrintLimits(const PrintLimits& limits) {
  detail::g_block_limit.store(limits.block_bytes, std::memory_order_relaxed);
  detail::g_launch_limit.store(limits.launch_bytes, std::memory_order_relaxed);
}

PrintLimits GetPrintLimits() {
  return PrintLimits{detail::g_block_limit.load(std::memory_order_relaxed),
                     detail::g_launch_limit.load(std::memory_order_relaxed)};
}

}  // namespace tessera::device
