// Registering operator definitions in a package's op library (the analogue of CANN's OP_ADD).
//
//   class AddCustom : public tessera::runtime::OpDef { ... };
//   TESSERA_OP_ADD(AddCustom);
//   TESSERA_OP_LIBRARY()   // once per op library
//
// In a package directory the runtime dlopens the library and calls `tessera_op_definitions` to
// create the OpDefs; in a package linked into the application (built with TESSERA_LINKED_PACKAGE)
// TESSERA_OP_LIBRARY() registers the list with the runtime instead (linked_package.h).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tessera/runtime/linked_package.h"
#include "tessera/runtime/op_def.h"

namespace tessera::runtime {

inline constexpr const char* kOpDefinitionsSymbol = "tessera_op_definitions";

namespace detail::TESSERA_PACKAGE_NAMESPACE {
inline std::vector<OpFactory>& LibraryOps() {
  static std::vector<OpFactory> ops;
  return ops;
}
struct OpRegistrar {
  explicit OpRegistrar(OpFactory factory) { LibraryOps().push_back(factory); }
};
}  // namespace detail::TESSERA_PACKAGE_NAMESPACE

namespace detail {
struct LinkedOpLibraryRegistrar {
  LinkedOpLibraryRegistrar(const char* package, OpDefinitionsFn list) {
    RegisterLinkedOpLibrary(package, list);
  }
};
}  // namespace detail
}  // namespace tessera::runtime

#define TESSERA_OP_ADD(OpClass)                                                   \
  static const ::tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE::OpRegistrar \
      tessera_op_registrar_##OpClass([]() -> ::tessera::runtime::OpDef* { return new OpClass(); })

#define TESSERA_OP_LIBRARY_LIST_BODY_()                                              \
  {                                                                                  \
    auto& ops = ::tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE::LibraryOps(); \
    *count = ops.size();                                                             \
    return ops.data();                                                               \
  }

#ifdef TESSERA_LINKED_PACKAGE
// Linked form: register the listing function with the runtime (called lazily at resolution).
#define TESSERA_OP_LIBRARY()                                                               \
  static const ::tessera::runtime::OpFactory* tessera_linked_op_definitions(size_t* count) \
      TESSERA_OP_LIBRARY_LIST_BODY_() static const ::tessera::runtime::detail::            \
          LinkedOpLibraryRegistrar tessera_linked_op_library(TESSERA_LINKED_PACKAGE,       \
                                                             &tessera_linked_op_definitions);
#else
// Package directory form: the runtime dlopens the library and calls this exported function.
#define TESSERA_OP_LIBRARY()                                                             \
  extern "C" __attribute__((visibility("default"))) const ::tessera::runtime::OpFactory* \
  tessera_op_definitions(size_t* count) TESSERA_OP_LIBRARY_LIST_BODY_()
#endif
