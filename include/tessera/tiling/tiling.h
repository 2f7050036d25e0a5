// The whole tiling layer: TilingData, TilingKey schemas, kernel tables, Ascend C template keys and
// multi-core split helpers.
#pragma once

#include "tessera/tiling/kernel_table.h"
#include "tessera/tiling/split.h"
#include "tessera/tiling/tiling_data.h"
#include "tessera/tiling/tiling_key.h"
#include "tessera/tiling/tpl_key.h"
