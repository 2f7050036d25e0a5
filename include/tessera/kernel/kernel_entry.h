// Kernel entries of an operator package's kernel library: what the runtime launches.
//
// A kernel library exports one entry per (kernel, tiling key) (the ABI is in
// tessera/device/kernel_abi.h). An entry receives the kernel's parameters as an array of
// global-memory addresses in CANN order: inputs, outputs, workspace, tiling. In a kernel source:
//
//   template <int kUseBias>
//   __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR ws, GM_ADDR
//   tiling); TESSERA_KERNEL_ENTRY(add_custom, 0, AIV, add_custom<0>)
//   TESSERA_KERNEL_ENTRY(add_custom, 1, AIV, add_custom<1>)
//
// and once per library (in any one source): TESSERA_KERNEL_LIBRARY(). Kernel libraries are built
// with hidden visibility (the CMake package function does this), so each library keeps its own
// entry list and exports only `tessera_kernel_entries`; a linked package (TESSERA_LINKED_PACKAGE)
// registers its list with the runtime instead (tessera/runtime/linked_package.h).
//
// Selective builds: when TESSERA_SELECTED_TILING_KEYS is defined (tessera_add_op_package does it
// from TESSERA_TILING_KEYS or TILING_KEYS) to a selection over kernel names such as
// "add_custom:0,1;cast:3" (items separated by ';' or ' ') or "0,1" (every kernel not named), an
// entry outside it is neither
// registered nor instantiated: its function template is never compiled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/device/kernel_abi.h"

// Each package's registration lists live in their own namespace, so two packages linked statically
// into one application stay apart. tessera_add_op_package() defines it per package.
#ifndef TESSERA_PACKAGE_NAMESPACE
#define TESSERA_PACKAGE_NAMESPACE package_default
#endif

namespace tessera::kernel {

using device::KernelEntriesFn;
using device::KernelEntryFn;
using device::KernelEntryInfo;

// One entry list per package (see TESSERA_PACKAGE_NAMESPACE in linked_package.h).
namespace detail::TESSERA_PACKAGE_NAMESPACE {
inline std::vector<KernelEntryInfo>& LibraryEntries() {
  static std::vector<KernelEntryInfo> entries;
  return entries;
}
}  // namespace detail::TESSERA_PACKAGE_NAMESPACE

namespace detail {

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

// True when `selection` (see above; empty selects everything) builds entry `key` of `kernel`.
constexpr bool TilingKeySelected(std::string_view selection, std::string_view kernel,
                                 uint64_t key) {
  if (selection.empty()) return true;
  // The keys of the item naming `kernel`, else of the bare item; with neither, every key.
  std::string_view keys;
  bool named = false;
  bool bare = false;
  while (!selection.empty()) {
    const size_t end = selection.find_first_of("; ");
    const std::string_view item = selection.substr(0, end);
    selection = end == std::string_view::npos ? std::string_view() : selection.substr(end + 1);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      if (!named && !item.empty()) {
        keys = item;
        bare = true;
      }
    } else if (item.substr(0, colon) == kernel) {
      keys = item.substr(colon + 1);
      named = true;
    }
  }
  if (!named && !bare) return true;
  uint64_t value = 0;
  bool digits = false;
  for (size_t i = 0; i <= keys.size(); ++i) {
    if (i < keys.size() && keys[i] >= '0' && keys[i] <= '9') {
      value = value * 10 + static_cast<uint64_t>(keys[i] - '0');
      digits = true;
      continue;
    }
    if (digits && value == key) return true;
    value = 0;
    digits = false;
  }
  return false;
}

// An entry's function, or none when the selection leaves it out.
struct SelectedEntry {
  uint32_t num_args = 0;
  KernelEntryFn fn = nullptr;
};

// In the package's own namespace: an inline function whose body differs per package must not
// share a name across packages (a static link would keep one body for all of them).
namespace TESSERA_PACKAGE_NAMESPACE {
struct EntryRegistrar {
  EntryRegistrar(const char* kernel, uint64_t key, const char* type, SelectedEntry entry) {
    if (entry.fn) {
      LibraryEntries().push_back(KernelEntryInfo{kernel, key, type, entry.num_args, entry.fn});
    }
  }
};
}  // namespace TESSERA_PACKAGE_NAMESPACE

struct LinkedKernelLibraryRegistrar {
  LinkedKernelLibraryRegistrar(const char* package, KernelEntriesFn list) {
    tessera_register_linked_kernel_library(package, list);
  }
};

}  // namespace detail
}  // namespace tessera::kernel

#define TESSERA_ENTRY_CONCAT_INNER_(a, b) a##b
#define TESSERA_ENTRY_CONCAT_(a, b) TESSERA_ENTRY_CONCAT_INNER_(a, b)

#ifdef TESSERA_SELECTED_TILING_KEYS
#define TESSERA_SELECTED_TILING_KEYS_ TESSERA_SELECTED_TILING_KEYS
#else
#define TESSERA_SELECTED_TILING_KEYS_ ""
#endif

// Registers `fn` (a kernel function taking only GM_ADDR parameters) as entry `kernel_name`_`key`;
// `key`
// is a constant expression. The `if constexpr` in a generic lambda keeps an unselected entry's
// function from being instantiated.
#define TESSERA_KERNEL_ENTRY(kernel_name, key, type, ...)                           \
  static const ::tessera::kernel::detail::TESSERA_PACKAGE_NAMESPACE::EntryRegistrar \
      TESSERA_ENTRY_CONCAT_(tessera_entry_, __COUNTER__)(                           \
          #kernel_name, key, #type,                                                 \
          [](auto selected) -> ::tessera::kernel::detail::SelectedEntry {           \
            if constexpr (decltype(selected)::value) {                              \
              return {::tessera::kernel::detail::Arity(&__VA_ARGS__),               \
                      &::tessera::kernel::detail::Trampoline<&__VA_ARGS__>};        \
            } else {                                                                \
              return {};                                                            \
            }                                                                       \
          }(std::bool_constant<::tessera::kernel::detail::TilingKeySelected(        \
                                TESSERA_SELECTED_TILING_KEYS_, #kernel_name, key)>{}));

#define TESSERA_KERNEL_LIBRARY_LIST_BODY_()                                                 \
  {                                                                                         \
    auto& entries = ::tessera::kernel::detail::TESSERA_PACKAGE_NAMESPACE::LibraryEntries(); \
    *count = entries.size();                                                                \
    return entries.data();                                                                  \
  }

// Defines the listing function; use in exactly one source of a kernel library. In a package
// directory it is exported for the runtime's dlsym; in a linked package it is registered.
#ifdef TESSERA_LINKED_PACKAGE
#define TESSERA_KERNEL_LIBRARY()                                                                \
  static const ::tessera::kernel::KernelEntryInfo* tessera_linked_kernel_entries(size_t* count) \
      TESSERA_KERNEL_LIBRARY_LIST_BODY_() static const ::tessera::kernel::detail::              \
          LinkedKernelLibraryRegistrar tessera_linked_kernel_library(                           \
              TESSERA_LINKED_PACKAGE, &tessera_linked_kernel_entries);
#else
#define TESSERA_KERNEL_LIBRARY()                                                              \
  extern "C" __attribute__((visibility("default"))) const ::tessera::kernel::KernelEntryInfo* \
  tessera_kernel_entries(size_t* count) TESSERA_KERNEL_LIBRARY_LIST_BODY_()
#endif
