// Shared by the C API sources: handle layouts and error reporting.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "tessera/core/status.h"
#include "tessera/core/tensor_desc.h"
#include "tessera/device/stream.h"
#include "tessera/tessera_nn.h"

struct tsrStreamHandle {
  tessera::device::Stream stream;
};
struct tsrEventHandle {
  tessera::device::Event event;
};
struct tsrTensor {
  tessera::TensorDesc desc;
  void* address = nullptr;
};

namespace tessera::c_api {

// Records a failure's message for tsrGetLastErrorMessage and maps its code.
tsrStatus Report(const Status& status);

// Runs fn, turning any exception into TSR_ERROR_INTERNAL: no exception crosses into C.
template <class Fn>
tsrStatus Guard(const char* api, Fn&& fn) {
  try {
    return Report(fn());
  } catch (const std::exception& e) {
    return Report(Status(StatusCode::kInternal, std::string(api) + ": " + e.what()));
  } catch (...) {
    return Report(Status(StatusCode::kInternal, std::string(api) + ": unknown exception"));
  }
}

// Live handles of every kind but executors (their own arena, below; CheckHandle covers both). A
// handle is a pointer the C API handed out and has not destroyed: checking membership before
// dereferencing means a destroyed, doubly destroyed or garbage handle is reported (naming the
// handle) instead of read. O(1): one hash lookup under a shared lock.
enum class HandleKind : uint8_t { kStream, kEvent, kTensor, kExecutor, kWorkspacePool };
const char* HandleKindName(HandleKind kind);  // "stream", "event", "tensor", ...
void RegisterHandle(HandleKind kind, const void* handle);
// Forgets `handle`; false when it was not a live handle of `kind` (the caller must not free it).
bool UnregisterHandle(HandleKind kind, const void* handle);
// OK when `handle` is a live handle of `kind`; otherwise InvalidArgument "<api>: <what> 0x... is
// not a live <kind> (destroyed, or not created by this library)". A null handle is an error too.
Status CheckHandle(const char* api, const char* what, HandleKind kind, const void* handle);
// True when every non-null entry of `handles` is a live handle of `kind`: the fast path of a
// call's tensor checks (one shared lock; CheckHandle then says which one is not).
bool AllLive(HandleKind kind, const void* const* handles, size_t count);

// Frees the memory (`size` bytes from ::operator new) of a destroyed handle later, after 1024 more
// handles were destroyed, so a handle used right after its destruction is not yet the address of
// a new handle of another kind or of a new handle of the same kind (which would make the misuse
// undetectable).
void DeferFree(void* memory, size_t size);
// Executor handles, made and destroyed once per call, live in an arena of their own instead of the
// registry: a slot of kExecutorHandleBytes (at least the handle's size) and a live flag. A slot is
// never freed, and a destroyed one is reused only after kExecutorQuarantine more executors were
// destroyed, so a destroyed executor is reported as one (as the registry's quarantine does).
// Checking a handle reads no memory outside the arena.
inline constexpr size_t kExecutorHandleBytes = 8;
inline constexpr size_t kExecutorQuarantine = 1024;
// Memory for a new executor handle, or null when the arena is full (millions of live executors).
// The caller constructs the handle there and then calls PublishExecutorHandle.
void* NewExecutorHandle();
void PublishExecutorHandle(void* handle);
bool IsLiveExecutor(const void* handle);
// Ends a live executor handle: false (and nothing done) when `handle` is not one; else
// `destroy(handle)` runs, once even under concurrent calls, and the slot goes to the quarantine.
bool EndExecutorHandle(const void* handle, void (*destroy)(void* handle));
// Current count of tensor handles destroyed: tensors a thread found live while it is unchanged are
// still the same live tensors (tensor handles are immutable).
uint64_t TensorEpoch();

// Destroys a handle's object now and frees its memory later (DeferFree). `handle` must have been
// unregistered and allocated with `new`.
template <class T>
void Retire(T* handle) {
  handle->~T();
  DeferFree(handle, sizeof(T));
}

// The default stream, without taking a reference on every call (it is never destroyed).
inline const device::Stream& DefaultStream() {
  static const auto* stream = new device::Stream();
  return *stream;
}

// The stream of a handle (null: the default stream), or why the handle is not a live stream.
inline Result<device::Stream> StreamOf(const char* api, tsrStream s) {
  if (s == nullptr) return device::Stream();
  TESSERA_RETURN_IF_ERROR(CheckHandle(api, "stream", HandleKind::kStream, s));
  return s->stream;
}
inline const TensorDesc& DescOf(const tsrTensor* t) {
  return t->desc;
}
inline void* AddressOf(const tsrTensor* t) {
  return t->address;
}

}  // namespace tessera::c_api
