// Debugging aids of the device: printing from kernels, a Chrome-trace timeline of launches and
// blocks, and a watchdog for launches that run too long. All three cost nothing when unused.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tessera/core/status.h"

namespace tessera::device {

// --- Printing from kernels -------------------------------------------------------------------
// Text printed by a block is kept in the block's buffer and written to stdout when the launch
// ends, block by block in launch order (fiber order: block order for AIV and AIC launches, group
// by group for MIX), each line prefixed `[kernel block 3 AIV] `. Outside a kernel the text goes to
// stdout at once. Nothing is allocated or locked until a block prints.
void KernelPrint(std::string_view text);
void KernelPrintf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Buffer limits in bytes: what a block prints beyond `block_bytes`, or a launch beyond
// `launch_bytes`, is dropped and a line says how much was cut and by which limit. Defaults from
// TESSERA_PRINT_BLOCK_LIMIT (64 KiB) and TESSERA_PRINT_LAUNCH_LIMIT (4 MiB); a launch reads them
// when it first prints.
struct PrintLimits {
  size_t block_bytes = 64 * 1024;
  size_t launch_bytes = 4 * 1024 * 1024;
};
void SetPrintLimits(const PrintLimits& limits);
PrintLimits GetPrintLimits();

// --- Timeline ----------------------------------------------------------------------------------
// With TESSERA_TRACE=file.json (or SetTraceFile) every launch is recorded in Chrome trace event
// format (open it in Perfetto or chrome://tracing): an "X" event per launch on its stream's lane
// (pid 1, tid = stream id) and one per block on its logical core's lane (pid 2, tid "AIV 3" /
// "AIC 0"). The file is brought up to date when a stream or the device is synchronised and at
// process exit; at most TESSERA_TRACE_LIMIT events (default 500000) are written, later ones are
// counted in "otherData". Off: each launch pays one relaxed load.
//
// Starts tracing into `path` (truncates it); "" stops tracing and completes the file.
Status SetTraceFile(const std::string& path);
// Writes the events recorded so far to the trace file (a no-op when tracing is off).
Status FlushTrace();

// --- Watchdog ----------------------------------------------------------------------------------
// With TESSERA_KERNEL_TIMEOUT=SECONDS (or SetKernelTimeout), a launch running longer is reported
// on stderr: every block not finished, and whether it is running or waiting and on what (SyncAll,
// cross-core flag id and counts). The launch then fails with that report as the stream's error:
// blocks that wait are released, blocks not started are skipped, but a block that is running
// (in a loop that never waits) cannot be interrupted - the launch ends when it returns.
// 0 turns the watchdog off; applies to launches enqueued afterwards.
void SetKernelTimeout(double seconds);
double GetKernelTimeout();

}  // namespace tessera::device
