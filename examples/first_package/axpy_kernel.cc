// The kernel library of first_package (built once per SoC): Axpy's kernel entries.
#include "axpy.h"

namespace first_package {
TESSERA_ELEWISE_OP_KERNEL(Axpy);
}  // namespace first_package

TESSERA_KERNEL_LIBRARY()
