// Registering operator definitions in a package's op library (the analogue of CANN's OP_ADD).
//
//   class AddCustom : public tessera::runtime::OpDef { ... };
//   TESSERA_OP_ADD(AddCustom);
//   TESSERA_OP_LIBRARY()   // once per op library
//
// The runtime dlopens the library and calls `tessera_op_definitions` to create the OpDefs.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "tessera/runtime/op_def.h"

namespace tessera::runtime {

using OpFactory = OpDef* (*)();
using OpDefinitionsFn = const OpFactory* (*)(size_t* count);
inline constexpr const char* kOpDefinitionsSymbol = "tessera_op_definitions";

namespace detail {
inline std::vector<OpFactory>& LibraryOps() {
  static std::vector<OpFactory> ops;  // one per library: op libraries hide symbols
  return ops;
}
struct OpRegistrar {
  explicit OpRegistrar(OpFactory factory) { LibraryOps().push_back(factory); }
};
}  // namespace detail
}  // namespace tessera::runtime

#define TESSERA_OP_ADD(OpClass)                                                        \
  static const ::tessera::runtime::detail::OpRegistrar tessera_op_registrar_##OpClass( \
      []() -> ::tessera::runtime::OpDef* { return new OpClass(); })

#define TESSERA_OP_LIBRARY()                                                             \
  extern "C" __attribute__((visibility("default"))) const ::tessera::runtime::OpFactory* \
  tessera_op_definitions(size_t* count) {                                                \
    auto& ops = ::tessera::runtime::detail::LibraryOps();                                \
    *count = ops.size();                                                                 \
    return ops.data();                                                                   \
  }
