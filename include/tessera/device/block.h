// What a running kernel block sees: its index, its core type, its on-chip arenas, and the
// cross-core synchronisation primitives of its launch. Call these only from inside a kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessera/core/status.h"

namespace tessera::device {

enum class CoreType : uint8_t { kAiv = 0, kAic = 1 };
// Which cores a launch occupies: vector only, cube only, or MIX groups of 1 AIC + task_ration AIV.
enum class KernelType : uint8_t { kAiv = 0, kAic = 1, kMix = 2 };

const char* CoreTypeName(CoreType type);      // "AIV" / "AIC"
const char* KernelTypeName(KernelType type);  // "AIV" / "AIC" / "MIX"

namespace detail {
class LaunchJob;
inline constexpr uint32_t kMaxCrossCoreFlags = 16;
}  // namespace detail

// Per-block state. Owned by the runtime; valid while the block runs.
struct BlockContext {
  uint32_t block_idx = 0;  // AIV in MIX: group * sub_block_num + sub_block_idx
  uint32_t block_num = 0;  // blockDim of the launch
  uint32_t sub_block_idx = 0;
  uint32_t sub_block_num = 1;  // task_ration on AIV in MIX, else 1
  uint32_t task_ration = 1;    // AIV per AIC in MIX as seen from this core (1 on AIC)
  CoreType core_type = CoreType::kAiv;
  KernelType kernel_type = KernelType::kAiv;
  const char* kernel_name = "";
  bool checked = false;  // checked mode was on at launch

  // On-chip arenas sized by the profile (null/0 where the core type has none).
  std::byte* ub = nullptr;
  size_t ub_bytes = 0;
  std::byte* l1 = nullptr;
  size_t l1_bytes = 0;
  std::byte* l0a = nullptr;
  size_t l0a_bytes = 0;
  std::byte* l0b = nullptr;
  size_t l0b_bytes = 0;
  std::byte* l0c = nullptr;
  size_t l0c_bytes = 0;
  std::byte* bt = nullptr;  // bias table (C2)
  size_t bt_bytes = 0;
  std::byte* fb = nullptr;  // fixpipe buffer (C2PIPE2GM)
  size_t fb_bytes = 0;

  // Per-block state of the layer above (the kernel API keeps its pipes, queues and checks here);
  // created on first use, released by the block-exit hook.
  void* layer_state = nullptr;

  // Runtime bookkeeping; not for kernels.
  detail::LaunchJob* launch = nullptr;
  uint32_t fiber_index = 0;  // position among all cores of the launch
  uint32_t group = 0;        // MIX group (AI core id)
  uint64_t barriers_passed = 0;
  uint64_t flag_waits[detail::kMaxCrossCoreFlags] = {};  // waits completed per flag id
};

// The running block, or nullptr outside a kernel.
const BlockContext* CurrentBlock();

// Ascend-style queries; outside a kernel they return 0 (indices) or 1 (counts).
uint32_t GetBlockIdx();
uint32_t GetBlockNum();
uint32_t GetSubBlockIdx();
uint32_t GetSubBlockNum();
uint32_t GetTaskRation();
CoreType GetCoreType();

// Barrier of every core of the launch. A waiting block yields its worker, so more blocks than
// threads never deadlock. Fails the launch when blockDim exceeds the profile's logical cores of the
// launch's type, because on an NPU those blocks are not all resident at once.
void SyncAll();

// Cross-core flags, as on the 2201 NPU: every core has 16 flag counters (ids 0..15). A wait on id f
// blocks until the core's counter f is above 0 and decrements it; the mode of the *set* decides
// whose counters it raises:
//   kAllCores (0):        once every core of the setter's type (AIC or AIV) in the launch has set
//                         f once more, each of them gets one count (a barrier; the launch must fit
//                         the profile's cores, since waiting cores hold theirs);
//   kGroupVector (1):     once both vector cores of a MIX group have set f, each gets one count;
//   kGroupCubeVector (2): the AIC's set gives each AIV of its group one count; once both AIVs have
//                         set f, their AIC gets one count.
// The wait's mode is not used on 2201 (a mode-0 wait pairs with a mode-2 set, as in the vendor's
// MIX samples); it only names the wait in deadlock reports. A counter holds at most 15 pending
// counts: a set beyond that aborts the kernel on the NPU and is a finding in checked mode. Flags
// never need the other groups of a MIX/AIC launch resident, so launches wider than the profile's
// cube cores run (fibers keep the extra groups resident).
enum class CrossCoreMode : uint8_t { kAllCores = 0, kGroupVector = 1, kGroupCubeVector = 2 };
inline constexpr uint32_t kMaxCrossCoreFlagCount = 15;
void CrossCoreSetFlag(CrossCoreMode mode, uint32_t flag_id);
void CrossCoreWaitFlag(CrossCoreMode mode, uint32_t flag_id);

// Fails the running block: unwinds it, marks the launch failed with `message` (the runtime prefixes
// kernel name, block index and core type) and makes the stream's error sticky. Other blocks of the
// launch waiting in SyncAll or on flags are released and stop.
[[noreturn]] void FailBlock(StatusCode code, std::string message);

// Like FailBlock, but returns: for findings made where unwinding is not possible (destructors,
// block-exit hooks). The first failure of a launch is the one reported.
void RecordBlockFailure(StatusCode code, std::string message);

// Called when a block ends (normally, by failure or by abort), before its arenas are released, for
// every block of every launch. The layer above installs one hook to check and free its per-block
// state; a second call replaces the first. The hook must not throw.
using BlockExitHook = void (*)(BlockContext& ctx, bool completed_normally);
void SetBlockExitHook(BlockExitHook hook);

}  // namespace tessera::device
