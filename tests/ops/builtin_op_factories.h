// The built-in op library's definitions for tests that compile its op list
// (ops/common/op_library.cc, part of TESSERA_BUILTIN_OP_SOURCES).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tessera/runtime/op_def.h"
#include "tessera/runtime/op_registration.h"

extern "C" const tessera::runtime::OpFactory* tessera_op_definitions(size_t* count);

namespace tessera::ops::testing {

// Every op the op library defines, in its order.
inline std::vector<std::unique_ptr<runtime::OpDef>> AllOps() {
  size_t count = 0;
  const runtime::OpFactory* factories = tessera_op_definitions(&count);
  std::vector<std::unique_ptr<runtime::OpDef>> ops;
  for (size_t i = 0; i < count; ++i)
    ops.emplace_back(factories[i]());
  return ops;
}

// The built-in op `type`; nullptr if no factory makes it.
inline std::unique_ptr<runtime::OpDef> MakeOp(const std::string& type) {
  for (std::unique_ptr<runtime::OpDef>& op : AllOps())
    if (op->type() == type) return std::move(op);
  return nullptr;
}

}  // namespace tessera::ops::testing
