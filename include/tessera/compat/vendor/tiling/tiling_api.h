// The vendor's host tiling library (tiling/tiling_api.h): the tiling structs and the temporary
// buffer size queries of the advanced APIs, for host code that tiles a vendor kernel.
#pragma once

// Platform and tiling-data registration.

// Matmul.

// Activation and math.
#include "tiling/activation/activation_tiling.h"
#include "tiling/math/math_tiling.h"

// Normalization, quantization, reduce, sort, index, filter, transpose, random, utilities.
