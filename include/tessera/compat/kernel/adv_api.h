// The vendor's advanced kernel APIs (what adv_api/kernel_api.h gives a kernel that includes
// kernel_operator.h), implemented on tessera's kernel layer, one header per family.
#pragma once

// Activation and math.
#include "tessera/compat/kernel/adv/activation.h"
#include "tessera/compat/kernel/adv/math.h"
#include "tessera/compat/kernel/adv/softmax.h"

// Normalization, quantization, reduce, sort, index, filter, transpose, random, utilities.
#include "tessera/compat/kernel/adv/broadcast.h"
#include "tessera/compat/kernel/adv/filter.h"
#include "tessera/compat/kernel/adv/index.h"
#include "tessera/compat/kernel/adv/normalization.h"
#include "tessera/compat/kernel/adv/normalize.h"
#include "tessera/compat/kernel/adv/pad.h"
#include "tessera/compat/kernel/adv/quant.h"
#include "tessera/compat/kernel/adv/reduce.h"
#include "tessera/compat/kernel/adv/sort.h"
#include "tessera/compat/kernel/adv/transdata.h"
#include "tessera/compat/kernel/adv/transpose.h"
#include "tessera/compat/kernel/adv/unpad.h"
#include "tessera/compat/kernel/adv/utils.h"
#include "tessera/compat/kernel/adv/welford.h"
