// Scalar atomics on global memory and polling of GM words other blocks write.
//
// Blocks of a launch run as fibers on a few threads, so a block that spins on a GM word another
// block writes would hold its thread forever. Every wait here polls with YieldBlock in its loop, so
// blocks that wait on each other make progress whatever the number of threads. In checked mode a
// store here is a release and a load that ends a wait an acquire of its word, so the race check
// orders what the blocks did around the handshake.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessera/device/gm_access.h"
#include "tessera/device/yield.h"
#include "tessera/kernel/check.h"
#include "tessera/kernel/data_copy.h"

namespace tessera::kernel {

namespace detail {
// The operation of the atomic mode of UB -> GM copies; SetAtomicMode's kNone type keeps the type
// already set.
enum class AtomicOp : uint8_t { kNone = 0, kAdd, kMax, kMin };
void SetAtomicMode(AtomicOp op, AtomicType type);
void SetAtomicElementType(AtomicType type);
template <class T>
void CheckGmScalar(const char* api, const T* address) {
  static_assert(std::is_integral_v<T> || std::is_floating_point_v<T>,
                "GM scalar atomics take an integer or floating-point type");
  if (address == nullptr) KernelFail(api, "address is null");
  if (reinterpret_cast<uintptr_t>(address) % sizeof(T) != 0) {
    KernelFail(api, "address is not aligned to its " + std::to_string(sizeof(T)) + "-byte type");
  }
}
// GCC / Clang atomic builtins: std::atomic_ref is C++20 and kernel headers compile as C++17.
template <class T>
T LoadAcquire(T* address) {
  T value;
  __atomic_load(address, &value, __ATOMIC_ACQUIRE);
  return value;
}
template <class T, class Combine>
T CombineGm(const char* api, T* address, Combine combine) {
  CheckGmScalar(api, address);
  if (device::RecordingGmAccess()) {
    device::NoteGmAccess(device::GmAccess::kAtomicAdd, address, sizeof(T), api);
  }
  T old;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  for (;;) {
    T desired = combine(old);
    if (__atomic_compare_exchange(address, &old, &desired, true, __ATOMIC_ACQ_REL,
                                  __ATOMIC_RELAXED)) {
      return old;
    }
  }
}
}  // namespace detail

// The atomic modes of UB -> GM copies beyond SetAtomicAdd (data_copy.h): after SetAtomicMax<T>()
// or SetAtomicMin<T>(), DataCopy and DataCopyPad from UB to GM keep the larger / smaller of each
// GM element and the copied one, atomically, until DisableDmaAtomic(); SetAtomicType<T>() changes
// the element type of the mode in effect. T: float, half, bfloat16_t, int32_t, int16_t, int8_t.
template <class T>
void SetAtomicMax() {
  detail::SetAtomicMode(detail::AtomicOp::kMax, detail::AtomicTypeOf<T>());
}
template <class T>
void SetAtomicMin() {
  detail::SetAtomicMode(detail::AtomicOp::kMin, detail::AtomicTypeOf<T>());
}
template <class T>
void SetAtomicType() {
  detail::SetAtomicElementType(detail::AtomicTypeOf<T>());
}
// Ends any atomic mode (SetAtomicNone's newer name).
inline void DisableDmaAtomic() {
  SetAtomicNone();
}

// *address += value as one atomic step; returns the value before. Blocks may add to one word.
template <class T>
T AtomicAdd(T* address, T value) {
  return detail::CombineGm("AtomicAdd", address,
                           [value](T old) { return static_cast<T>(old + value); });
}
// *address = max(*address, value) atomically; returns the value before.
template <class T>
T AtomicMax(T* address, T value) {
  return detail::CombineGm("AtomicMax", address,
                           [value](T old) { return old < value ? value : old; });
}
// *address = min(*address, value) atomically; returns the value before.
template <class T>
T AtomicMin(T* address, T value) {
  return detail::CombineGm("AtomicMin", address,
                           [value](T old) { return value < old ? value : old; });
}
// If *address == expected, stores desired; atomically. Returns the value before either way.
template <class T>
T AtomicCas(T* address, T expected, T desired) {
  return detail::CombineGm("AtomicCas", address,
                           [expected, desired](T old) { return old == expected ? desired : old; });
}
// Stores value atomically; returns the value before.
template <class T>
T AtomicExch(T* address, T value) {
  return detail::CombineGm("AtomicExch", address, [value](T) { return value; });
}

// Stores `value` to GM so other blocks see it at once (a release of the word in checked mode).
template <class T>
void StoreGmShared(T* address, T value) {
  detail::CheckGmScalar("StoreGmShared", address);
  if (device::RecordingGmAccess()) {
    device::NoteRelease(address);
  }
  __atomic_store(address, &value, __ATOMIC_RELEASE);
}

// Loads a GM word other blocks may write, then yields once, so a loop polling it lets the writer
// run (an acquire of the word in checked mode).
template <class T>
T LoadGmShared(T* address) {
  detail::CheckGmScalar("LoadGmShared", address);
  const T value = detail::LoadAcquire(address);
  if (device::RecordingGmAccess()) device::NoteAcquire(address);
  device::YieldBlock();
  return value;
}

// Returns once pred(*address) holds for the word's current value, yielding between polls. Returns
// that value.
template <class T, class Pred>
T WaitGmWord(T* address, Pred pred) {
  detail::CheckGmScalar("WaitGmWord", address);
  for (;;) {
    const T value = detail::LoadAcquire(address);
    if (pred(value)) {
      if (device::RecordingGmAccess()) device::NoteAcquire(address);
      return value;
    }
    device::YieldBlock();
  }
}

// Makes this block's earlier GM stores visible to other blocks and lets them run once: the CPU's
// caches are coherent, so what a data-cache flush leaves to do is ordering and progress.
inline void SyncGmView() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  device::YieldBlock();
}

}  // namespace tessera::kernel
