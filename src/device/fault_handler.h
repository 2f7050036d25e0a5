// Checked mode's SIGSEGV/SIGBUS handler: turns a fault in a guard page or in quarantined (freed)
// memory into a message naming the allocation and the kernel block, then lets the process die.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::device::detail {

// What the handler knows about one checked allocation. Kept in a fixed lock-free table because
// a signal handler can take no locks.
struct GuardRecord {
  uintptr_t data = 0;          // first byte handed to the user
  size_t size = 0;             // bytes requested
  uintptr_t region_begin = 0;  // whole mapping, including header page(s) and guard page
  uintptr_t region_end = 0;
  uint64_t id = 0;
};

void InstallFaultHandler();
// Returns a slot index, or -1 when the table is full (the fault is then reported without names).
int RegisterGuard(const GuardRecord& record);
void MarkGuardFreed(int slot);   // the region is now quarantined
void UnregisterGuard(int slot);  // the region was unmapped
// Gives the calling thread a signal stack, so a fiber stack overflow can still be reported.
void InstallAlternateSignalStack();

}  // namespace tessera::device::detail
