// Tiling data of the custom package's Add.
#pragma once

#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(FusedAddTilingData)
  TILING_DATA_FIELD_DEF(int64_t, total)
  TILING_DATA_FIELD_DEF(int64_t, perCore)
END_TILING_DATA_DEF;
