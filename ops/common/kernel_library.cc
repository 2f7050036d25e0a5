// The kernel library's exported listing of every built-in kernel entry (each kernel source adds its
// own with TESSERA_KERNEL_ENTRY).
#include "tessera/kernel/kernel_entry.h"

TESSERA_KERNEL_LIBRARY()
