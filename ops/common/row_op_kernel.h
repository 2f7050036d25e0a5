// Device-side helpers of the ops built on elewise fused operators: one kernel entry per dtype,
// the tiling key being the dtype code (op_keys.h DtypeField). Kernels run the compiled back end
// (fused::Compiled*, elewise/compiled.h) of the operator the tiling function planned.
#pragma once

#include <cstdint>

#include "op_keys.h"
#include "tessera/core/float16.h"
#include "tessera/elewise/compiled.h"
#include "tessera/elewise/fused.h"
#include "tessera/elewise/op_kernel.h"
#include "tessera/kernel/kernel_entry.h"
#include "tessera/kernel/kernel_operator.h"

// Registers Entry<float>, Entry<half> and Entry<bfloat16> as entries of `kernel`.
#define TESSERA_ROW_OP_ENTRIES(kernel, Entry)                                                   \
  TESSERA_KERNEL_ENTRY(kernel, ::tessera::ops::DtypeField(::tessera::DataType::kFloat32), AIV,  \
                       Entry<float>)                                                            \
  TESSERA_KERNEL_ENTRY(kernel, ::tessera::ops::DtypeField(::tessera::DataType::kFloat16), AIV,  \
                       Entry<::tessera::half>)                                                  \
  TESSERA_KERNEL_ENTRY(kernel, ::tessera::ops::DtypeField(::tessera::DataType::kBfloat16), AIV, \
                       Entry<::tessera::bfloat16>)
