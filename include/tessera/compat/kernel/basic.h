// Ascend C kernel-side utilities that map onto tessera directly: the `block_idx` / `block_num`
// globals, ascendc_assert / ASCENDC_ASSERT / KERNEL_LOG, GetSystemCycle, DivCeil, ONE_BLK_SIZE,
// IsSameType.
#pragma once

#include <cassert>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

#include "tessera/device/block.h"
#include "tessera/kernel/print.h"

namespace tessera::compat {

// `block_idx` / `block_num` read the running block's index / the launch's block count, as the
// vendor's per-core globals do (int64_t there).
struct BlockIdxValue {
  operator int64_t() const { return device::GetBlockIdx(); }
};
struct BlockNumValue {
  operator int64_t() const { return device::GetBlockNum(); }
};

namespace detail {
inline std::string FormatAssertMessage(const char* format) {
  return format;
}
template <class... Args>
std::string FormatAssertMessage(const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, kernel::detail::PrintfArg(args)...);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::snprintf(out.data(), out.size() + 1, format, kernel::detail::PrintfArg(args)...);
  return out;
}

// A failed assertion fails the block (the launch reports kernel, block and this message).
struct AscAssertAt {
  const char* text;  // the macro's arguments as written
  const char* file;
  int line;
  template <class Cond, class... Args>
  void operator()(const Cond& cond, Args... args) const {
    if (static_cast<bool>(cond)) return;
    std::string message =
        std::string("ascendc_assert(") + text + ") failed at " + file + ":" + std::to_string(line);
    if constexpr (sizeof...(Args) > 0) message += ": " + FormatAssertMessage(args...);
    device::FailBlock(StatusCode::kKernelError, std::move(message));
  }
};
// The C assert() inside a kernel: fails the block, as a failed assert raises an AI-core exception
// on the NPU (aclrtSynchronizeStream then returns ACL_ERROR_RT_AICORE_EXCEPTION); on the host it
// aborts as the C library's does.
[[noreturn]] inline void KernelAssertFailed(const char* expr, const char* file, unsigned line,
                                            const char* function) {
  if (device::CurrentBlock() != nullptr) {
    device::FailBlock(StatusCode::kKernelError, std::string(file) + ":" + std::to_string(line) +
                                                    ": " + function + ": Assertion `" + expr +
                                                    "' failed.");
  }
  std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, expr);
  std::abort();
}
template <class... Args>
void KernelLog(int level, const char* format, Args... args) {
  static constexpr const char* kLevels[] = {"DEBUG", "INFO", "WARN", "ERROR"};
  const char* tag = level >= 0 && level <= 3 ? kLevels[level] : "LOG";
  std::fprintf(stderr, "[%s] %s\n", tag, FormatAssertMessage(format, args...).c_str());
}
}  // namespace detail

}  // namespace tessera::compat

inline const ::tessera::compat::BlockIdxValue block_idx{};
inline const ::tessera::compat::BlockNumValue block_num{};

// assert(expr) as the kernels use it (see KernelAssertFailed). <cassert> defines assert again each
// time it is included, so a kernel source that includes it after kernel_operator.h gets the C
// library's again.
#ifndef NDEBUG
#undef assert
#define assert(expr)       \
  (static_cast<bool>(expr) \
       ? void(0)           \
       : ::tessera::compat::detail::KernelAssertFailed(#expr, __FILE__, __LINE__, __func__))
#endif

// ascendc_assert(cond [, format, args...]): fails the block with the formatted message.
#define ascendc_assert(...) \
  ::tessera::compat::detail::AscAssertAt{#__VA_ARGS__, __FILE__, __LINE__}(__VA_ARGS__)
// ASCENDC_ASSERT(cond, { statements }): runs the statements (typically KERNEL_LOG) then fails.
#define ASCENDC_ASSERT(cond, behavior)                                          \
  do {                                                                          \
    if (!(cond)) {                                                              \
      behavior;                                                                 \
      ::tessera::compat::detail::AscAssertAt{#cond, __FILE__, __LINE__}(false); \
    }                                                                           \
  } while (0)
#define KERNEL_DEBUG 0
#define KERNEL_INFO 1
#define KERNEL_WARN 2
#define KERNEL_ERROR 3
// KERNEL_LOG(level, format, args...): one line on stderr, tagged with the level.
#define KERNEL_LOG(level, ...) ::tessera::compat::detail::KernelLog(level, __VA_ARGS__)

namespace AscendC {
// Bytes in one UB data block.
inline constexpr int32_t ONE_BLK_SIZE = 32;
// Nanoseconds of a steady clock: the CPU has no AI-core cycle counter, and differences are what
// kernels take.
inline int64_t GetSystemCycle() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
template <class T, class U>
constexpr T DivCeil(T a, U b) {
  return static_cast<T>((a + b - 1) / b);
}
// The vendor's type-equality trait (kernels branch on `IsSameType<T, int8_t>::value`).
template <class T, class U>
struct IsSameType : std::is_same<T, U> {};
}  // namespace AscendC
