// Checked mode: the global-memory accesses of a launch's blocks, for finding races between blocks
// and outputs no block wrote.
//
// The kernel layer reports each GM byte range a block reads or writes (DataCopy, DataCopyPad,
// Fixpipe, element access). The device orders them by happens-before: program order within a
// block, SyncAll (everything before a barrier precedes everything after it), cross-core flags (a
// set precedes the wait that consumes its count) and release/acquire annotations on handshake
// words in GM. When the launch ends, two accesses of different blocks to the same bytes, at least
// one a write, that no chain of these orders are reported, naming both blocks and the byte ranges.
// Every call is a no-op outside checked launches.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::device {

// kAtomicAdd: a write that adds (SetAtomicAdd); atomic adds of two blocks to the same bytes are
// no race, an atomic add and a plain write or read are.
enum class GmAccess : uint8_t { kRead = 0, kWrite = 1, kAtomicAdd = 2 };

// Records that the running block accessed [ptr, ptr + bytes) of device memory through `api` (a
// string literal).
void NoteGmAccess(GmAccess kind, const void* ptr, size_t bytes, const char* api);

// Happens-before through a word in GM that fibers exchange with atomics (the Matmul API's
// mailboxes): what the block did before NoteRelease(word) precedes what another block does after
// a later NoteAcquire(word).
void NoteRelease(const void* word);
void NoteAcquire(const void* word);

// True when the running block's launch records GM accesses (checked mode), so callers can skip
// computing ranges otherwise.
bool RecordingGmAccess();

}  // namespace tessera::device
