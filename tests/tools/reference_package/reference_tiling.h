// Tiling data of the reference test package's ops.
#pragma once

#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(RefSumTilingData)
TILING_DATA_FIELD_DEF(int64_t, total)
TILING_DATA_FIELD_DEF(int64_t, perCore)
TILING_DATA_FIELD_DEF(int64_t, alpha)
END_TILING_DATA_DEF;
