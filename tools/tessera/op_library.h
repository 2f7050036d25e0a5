// The OpDef a package's op library defines for an op, loaded by the CLI as the runtime loads it
// (so `tessera run` can call the op's Reference()).
#pragma once

#include <string>

#include "tessera/core/status.h"
#include "tessera/runtime/op_def.h"

namespace tessera::cli {

// `op`'s definition in the op library of the package at `package_dir`: the manifest is parsed,
// the library opened, checked against its sha256 and loaded through that descriptor. The library
// stays loaded and the definition alive for the rest of the process (it is cached per package
// directory and op).
Result<const runtime::OpDef*> LoadPackageOpDef(const std::string& package_dir,
                                               const std::string& op);

}  // namespace tessera::cli
