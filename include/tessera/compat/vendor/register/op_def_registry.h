// register/op_def_registry.h: OP_ADD(OpType) registers a vendor op (ops::OpDef) in the package's
// op library, as CANN's does; no library macro is needed (every op source provides the library's
// listing function, once per library at link time).
#pragma once

#include "register/op_def.h"
#include "tessera/runtime/op_registration.h"

#define OP_ADD(opType)                                                            \
  static const ::tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE::OpRegistrar \
      tessera_vendor_op_registrar_##opType(                                       \
          []() -> ::tessera::runtime::OpDef* { return new opType(#opType); })

#ifdef TESSERA_LINKED_PACKAGE
namespace tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE {
inline const OpFactory* VendorOpDefinitions(size_t* count) {
  auto& ops = LibraryOps();
  *count = ops.size();
  return ops.data();
}
inline const LinkedOpLibraryRegistrar vendor_op_library(TESSERA_LINKED_PACKAGE,
                                                        &VendorOpDefinitions);
}  // namespace tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE
#else
// Weak: each op source of a library defines it and the link keeps one (a tessera
// TESSERA_OP_LIBRARY() in the same library takes precedence; it lists the same ops).
extern "C" __attribute__((weak, visibility("default"))) const ::tessera::runtime::OpFactory*
tessera_op_definitions(size_t* count) {
  auto& ops = ::tessera::runtime::detail::TESSERA_PACKAGE_NAMESPACE::LibraryOps();
  *count = ops.size();
  return ops.data();
}
#endif
