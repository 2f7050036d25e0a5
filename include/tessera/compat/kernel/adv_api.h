// The vendor's advanced kernel APIs (what adv_api/kernel_api.h gives a kernel that includes
// kernel_operator.h), implemented on tessera's kernel layer, one header per family.
#pragma once

// Activation and math.

// Normalization, quantization, reduce, sort, index, filter, transpose, random, utilities.

