// Kernel-side findings: misuse of the kernel API reported as an error on the stream, naming kernel,
// block, API and the offending values, and (with TESSERA_CHECK_REPORT=file.json) written to a JSON
// report.
//
// Two kinds of checks exist. Structural ones (queue misuse, UB capacity) cost O(1) per call and
// always run: without them a kernel would corrupt memory. Access checks (element bounds, DataCopy
// alignment and extents, leaks, flag pairing) run only when the launch is in checked mode; in fast
// mode they reduce to one predictable branch on a flag the tensor already carries.
#pragma once

#include <string>
#include <string_view>

#include "tessera/device/block.h"

namespace tessera::kernel {

// True when the running block's launch was made in checked mode.
inline bool CheckedLaunch() {
  const device::BlockContext* block = device::CurrentBlock();
  return block != nullptr && block->checked;
}

// Records the finding and fails the block (unwinds it). `api` is the kernel API's name
// ("DataCopy", "TQue::DeQue", ...).
[[noreturn]] void KernelFail(std::string_view api, const std::string& message);
// Records the finding and fails the launch without unwinding (for end-of-block checks).
void KernelFinding(std::string_view api, const std::string& message);

}  // namespace tessera::kernel

// Checked-mode assertion: evaluates `cond` (and builds the message) only in checked launches.
#define TESSERA_KERNEL_CHECK(checked, cond, api, message)             \
  do {                                                                \
    if (__builtin_expect(static_cast<bool>(checked), 0) && !(cond)) { \
      ::tessera::kernel::KernelFail(api, message);                    \
    }                                                                 \
  } while (0)
