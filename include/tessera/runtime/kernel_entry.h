// The ABI between an operator package's kernel library and the runtime.
//
// A kernel library exports one entry per (kernel, tiling key). An entry receives the kernel's
// parameters as an array of global-memory addresses in CANN order: inputs, outputs, workspace,
// tiling. In a kernel source:
//
//   template <int kUseBias>
//   __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws, GM_ADDR
//   tiling); TESSERA_KERNEL_ENTRY(add_custom, 0, AIV, add_custom<0>)
//   TESSERA_KERNEL_ENTRY(add_custom, 1, AIV, add_custom<1>)
//
// and once per library (in any one source): TESSERA_KERNEL_LIBRARY(). Kernel libraries are built
// with hidden visibility (the CMake package function does this), so each library keeps its own
// entry list and exports only `tessera_kernel_entries`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tessera::runtime {

using KernelEntryFn = void (*)(uint8_t* const* args);

struct KernelEntryInfo {
  const char* kernel;  // snake_case kernel name, e.g. "add_custom"
  uint64_t tiling_key;
  const char* kernel_type;  // "AIV", "AIC" or "MIX"
  uint32_t num_args;        // parameters the entry expects
  KernelEntryFn fn;
};

// Signature of the exported listing function.
using KernelEntriesFn = const KernelEntryInfo* (*)(size_t* count);
inline constexpr const char* kKernelEntriesSymbol = "tessera_kernel_entries";

namespace detail {

inline std::vector<KernelEntryInfo>& LibraryEntries() {
  static std::vector<KernelEntryInfo> entries;  // one per library: kernel libraries hide symbols
  return entries;
}

template <class... Params>
constexpr uint32_t Arity(void (*)(Params...)) {
  return sizeof...(Params);
}

template <auto Kernel, size_t... I>
void CallWithArgs(uint8_t* const* args, std::index_sequence<I...>) {
  Kernel(args[I]...);
}

template <auto Kernel>
void Trampoline(uint8_t* const* args) {
  CallWithArgs<Kernel>(args, std::make_index_sequence<Arity(Kernel)>());
}

struct EntryRegistrar {
  EntryRegistrar(const char* kernel, uint64_t key, const char* type, uint32_t num_args,
                 KernelEntryFn fn) {
    LibraryEntries().push_back(KernelEntryInfo{kernel, key, type, num_args, fn});
  }
};

}  // namespace detail
}  // namespace tessera::runtime

#define TESSERA_ENTRY_CONCAT_INNER_(a, b) a##b
#define TESSERA_ENTRY_CONCAT_(a, b) TESSERA_ENTRY_CONCAT_INNER_(a, b)

// Registers `fn` (a kernel function taking only GM_ADDR parameters) as entry `kernel`_`key`.
#define TESSERA_KERNEL_ENTRY(kernel, key, type, ...)                                \
  static const ::tessera::runtime::detail::EntryRegistrar TESSERA_ENTRY_CONCAT_(    \
      tessera_entry_, __COUNTER__)(#kernel, key, #type,                             \
                                   ::tessera::runtime::detail::Arity(&__VA_ARGS__), \
                                   &::tessera::runtime::detail::Trampoline<&__VA_ARGS__>);

// Defines the exported listing function; use in exactly one source of a kernel library.
#define TESSERA_KERNEL_LIBRARY()                                                               \
  extern "C" __attribute__((visibility("default"))) const ::tessera::runtime::KernelEntryInfo* \
  tessera_kernel_entries(size_t* count) {                                                      \
    auto& entries = ::tessera::runtime::detail::LibraryEntries();                              \
    *count = entries.size();                                                                   \
    return entries.data();                                                                     \
  }
