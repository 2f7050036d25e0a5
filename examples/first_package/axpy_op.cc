// The op library of first_package: Axpy's OpDef and tiling function.
#include "axpy.h"

namespace first_package {
TESSERA_ELEWISE_OP_DEF(Axpy);
}  // namespace first_package

TESSERA_OP_LIBRARY()
