// Vendor path of the kernel debugging API (AscendC::printf, PRINTF, DumpTensor): all of it is in
// kernel_operator.h on tessera.
#pragma once

#include "kernel_operator.h"
