// Process-wide device state: active profile, checked mode, worker pool facts, device-wide sync.
#pragma once

#include <cstdint>
#include <string_view>

#include "tessera/core/status.h"
#include "tessera/device/arch_spec.h"

namespace tessera::device {

// The active profile. Initially TESSERA_PROFILE (default "native").
const ArchSpec& CurrentArch();
// Switches the active profile. Fails with FailedPrecondition while any stream has work in flight,
// and with NotFound (listing the profiles) for an unknown name.
Status SetProfile(std::string_view name);

// Checked mode: guard pages and headers on allocations, launch-argument validation, canaries, and
// the kernel-layer checks. Initially TESSERA_CHECK=1/0. Affects allocations made after the switch.
bool CheckedMode();
void SetCheckedMode(bool enabled);

// Threads of the persistent worker pool (TESSERA_WORKERS, default: HardwareThreads()).
uint32_t WorkerThreads();

// Waits for every stream; returns the first sticky error among them (errors stay set).
Status DeviceSynchronize();

}  // namespace tessera::device
