// The vendor's host tiling library (tiling/tiling_api.h): the tiling structs and the temporary
// buffer size queries of the advanced APIs, for host code that tiles a vendor kernel.
#pragma once

// Platform and tiling-data registration.
#include "register/tilingdata_base.h"

// Matmul.
#include "lib/matmul/matmul_tiling.h"
#include "tiling/platform/platform_ascendc.h"

// Activation and math.
#include "tiling/activation/activation_tiling.h"
#include "tiling/math/math_tiling.h"

// Normalization, quantization, reduce, sort, index, filter, transpose, random, utilities.
#include "tiling/filter/dropout_tiling.h"
#include "tiling/normalization/layernorm_tiling.h"
#include "tiling/normalization/welford_tiling.h"
#include "tiling/pad/pad_tiling.h"
#include "tiling/quantization/quant_tiling.h"
#include "tiling/reduce/reduce_tiling.h"
#include "tiling/sort/sort_tiling.h"
#include "tiling/transpose/unpad_tiling.h"
#include "tiling/utils/types.h"
