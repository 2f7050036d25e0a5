// Tiling data of LeakyReluCustom (plain struct).
#pragma once

#include <cstdint>

struct LeakyReluCustomTilingData {
  uint32_t totalLength;
  uint32_t perCore;
  float negativeSlope;
};
