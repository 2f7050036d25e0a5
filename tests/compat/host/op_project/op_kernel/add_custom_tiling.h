// Tiling data of AddCustom: a plain struct, as vendor op projects write it.
#pragma once

#include <cstdint>

struct AddCustomTilingData {
  uint32_t totalLength;
  uint32_t tileNum;
};
