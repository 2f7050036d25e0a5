// The name of a function from its address, for naming kernels in errors.
#pragma once

#include <string>

namespace tessera::device::detail {

// The mangled symbol of the function starting at `address`: from the dynamic symbol table
// (dladdr), else from the static symbol table of the object that holds it (an executable linked
// without -rdynamic exports nothing, but keeps .symtab unless stripped). "" when neither knows it.
// Results are cached per address.
std::string FunctionSymbol(const void* address);

}  // namespace tessera::device::detail
