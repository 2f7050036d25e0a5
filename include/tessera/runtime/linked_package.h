// Operator packages linked into the application (shared or static library) instead of installed
// as a package directory. They have the highest priority (docs/runtime_packages.md).
//
// tessera_add_op_package() compiles the linked form with TESSERA_LINKED_PACKAGE=<name>; then
// TESSERA_OP_LIBRARY() and TESSERA_KERNEL_LIBRARY() expand to static registrars calling the
// functions below, and a generated source registers the package's manifest. Registration only
// stores function pointers: static initialisation order across translation units is unspecified,
// so the listing functions are called lazily, when the runtime resolves an op.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/device/kernel_abi.h"

// Each package's registration lists (op_registration.h, tessera/kernel/kernel_entry.h) live in
// their own namespace, so two packages linked statically into one application stay apart.
// tessera_add_op_package() defines it per package.
#ifndef TESSERA_PACKAGE_NAMESPACE
#define TESSERA_PACKAGE_NAMESPACE package_default
#endif

namespace tessera::runtime {

class OpDef;
using device::KernelEntriesFn;
using device::KernelEntryFn;
using device::KernelEntryInfo;
using device::kKernelEntriesSymbol;

using OpFactory = OpDef* (*)();
// Lists an op library's op factories.
using OpDefinitionsFn = const OpFactory* (*)(size_t* count);

// Registrars of a linked package (called during static initialisation; thread-safe). `package`
// and `manifest_json` must outlive the process (string literals; a shared linked library must
// never be dlclosed). A second registration of the same part of the same package (e.g. both the
// shared and the static form linked) is ignored and reported as a warning by LinkedPackages().
void RegisterLinkedOpLibrary(const char* package, OpDefinitionsFn list);
void RegisterLinkedKernelLibrary(const char* package, KernelEntriesFn list);
// `soc` is the ISA level or compute unit the linked kernels were compiled for; `anchor` is any
// address inside the linked library, used to name its file.
void RegisterLinkedManifest(const char* package, const char* soc, const char* manifest_json,
                            const void* anchor);

struct LinkedPackage {
  std::string name;
  std::string soc;                 // target of the linked kernels; empty if no manifest registered
  std::string_view manifest_json;  // the package's manifest.json text
  std::string library;             // the file holding the package: a shared library or the program
  OpDefinitionsFn ops = nullptr;
  KernelEntriesFn kernels = nullptr;
  // Why the package cannot be used (a part was never registered); empty when complete.
  std::string Problem() const;
};

struct LinkedPackages {
  std::vector<LinkedPackage> packages;  // registration order (= priority order)
  std::vector<std::string> warnings;    // repeated registrations
};

// A snapshot of every linked package.
LinkedPackages ListLinkedPackages();
// The linked package called `name`, or nullopt.
std::optional<LinkedPackage> FindLinkedPackage(std::string_view name);

}  // namespace tessera::runtime
