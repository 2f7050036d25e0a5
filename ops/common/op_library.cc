// The op library's exported listing of every built-in OpDef (each op source adds its own with
// TESSERA_OP_ADD).
#include "tessera/runtime/op_registration.h"

TESSERA_OP_LIBRARY()
