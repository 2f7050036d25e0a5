// Checked mode with a trace open (TESSERA_CHECK=1 and TESSERA_TRACE): the kernel API reports which
// hardware pipe each of its calls occupies, and the trace shows the calls as phase slices inside
// each block on the block's core lane (consecutive calls on one pipe merge into one slice). Outside
// such launches the calls are no-ops; the kernel API makes them only for checked tensors, so fast
// mode never reaches them.
#pragma once

#include <cstdint>

namespace tessera::device {

// The pipes of a 2201 AI core that phases record: MTE2 GM -> UB/L1, MTE1 L1 -> L0A/L0B/bias
// table, M the cube, FIX L0C -> GM/L1, V the vector unit, MTE3 UB -> GM.
enum class TracePipe : uint8_t { kMte2 = 0, kMte1, kM, kFix, kV, kMte3 };
inline constexpr int kTracePipeCount = 6;
// "MTE2", "MTE1", "M", "FIX", "V", "MTE3".
const char* TracePipeName(TracePipe pipe);

// Starts a kernel API call of the running block: returns its start time in ns, or -1 when the
// block records no phases. A call made inside another call (an API implemented with another)
// counts as part of the outer one.
int64_t BeginPipeCall();
// Ends the call BeginPipeCall started at `begin_ns` (>= 0); it occupied `pipe`.
void EndPipeCall(TracePipe pipe, int64_t begin_ns) noexcept;

}  // namespace tessera::device
