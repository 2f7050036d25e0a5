// The binary interface between a kernel library and whatever launches its entries (the runtime,
// a test, a linked application). Kernel authors use tessera/kernel/kernel_entry.h, which builds
// these tables; loaders read them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::device {

// One kernel entry: receives the kernel's parameters as an array of global-memory addresses in
// CANN order (inputs, outputs, workspace, tiling).
using KernelEntryFn = void (*)(uint8_t* const* args);

struct KernelEntryInfo {
  const char* kernel;  // snake_case kernel name, e.g. "add_custom"
  uint64_t tiling_key;
  const char* kernel_type;  // "AIV", "AIC" or "MIX"
  uint32_t num_args;        // parameters the entry expects
  KernelEntryFn fn;
};

// Lists a kernel library's entries; the array lives as long as the library.
using KernelEntriesFn = const KernelEntryInfo* (*)(size_t* count);

// Name of the listing function a kernel library in a package directory exports.
inline constexpr const char* kKernelEntriesSymbol = "tessera_kernel_entries";

}  // namespace tessera::device

// Registers the kernel library of a package linked into the application (defined by the runtime,
// which a linked package always links). `package` must outlive the process.
extern "C" void tessera_register_linked_kernel_library(const char* package,
                                                       tessera::device::KernelEntriesFn list);
