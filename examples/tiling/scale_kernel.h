// A specialised kernel end to end: TilingData for run-time parameters, a TilingKey for the code
// path, a tiling function choosing both, and a kernel instantiated per valid key.
//
//   out[i] = (UseScale ? in[i] * scale : in[i]) + bias, processed in tiles of BlockM elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "tessera/tiling/kernel_table.h"
#include "tessera/tiling/tiling_data.h"
#include "tessera/tiling/tiling_key.h"

namespace scale_example {

// Run-time values: change every call, need no new code.
BEGIN_TILING_DATA_DEF(ScaleTiling)
  TILING_DATA_FIELD_DEF(int64_t, total)
  TILING_DATA_FIELD_DEF(int64_t, tile_num)
  TILING_DATA_FIELD_DEF(float, scale, 1.0f)
  TILING_DATA_FIELD_DEF(float, bias)
END_TILING_DATA_DEF;

// Code-path choices: one kernel instance per valid combination. The scaled path is only written
// for 128-element tiles, so is_valid refuses UseScale=1 with BlockM=64.
constexpr bool ScaleKeyIsValid(std::span<const int64_t> v) {
  return !(v[0] == 1 && v[1] == 64);
}
inline constexpr tessera::tiling::StaticKeySchema kScaleKey(
    {{"UseScale", 1, tessera::tiling::Values<0, 1>},
     {"BlockM", 2, tessera::tiling::Values<64, 128>}},
    &ScaleKeyIsValid);

struct ScaleKernel {
  template <int64_t UseScale, int64_t BlockM>
  static void Run(const float* in, float* out, int64_t n, const uint8_t* tiling) {
    GET_TILING_DATA_WITH_STRUCT(ScaleTiling, t, tiling);
    const int64_t total = std::min(n, t.total);
    float tile[BlockM];  // stands in for a UB buffer sized by the key
    for (int64_t k = 0; k < t.tile_num; ++k) {
      const int64_t begin = k * BlockM;
      const int64_t len = std::min<int64_t>(BlockM, total - begin);
      if (len <= 0) break;
      std::copy(in + begin, in + begin + len, tile);
      for (int64_t i = 0; i < len; ++i) {
        if constexpr (UseScale == 1) {
          tile[i] = tile[i] * t.scale + t.bias;
        } else {
          tile[i] = tile[i] + t.bias;
        }
      }
      std::copy(tile, tile + len, out + begin);
    }
  }
};

using ScaleKernelTable = tessera::tiling::KernelTable<ScaleKernel, kScaleKey>;

struct ScalePlan {
  ScaleTiling data;
  tessera::tiling::KeyMap key;
};

// The tiling function: scaling needs the 128-element path; small unscaled inputs use 64.
inline ScalePlan ScaleTilingFunc(int64_t n, float scale, float bias) {
  ScalePlan plan;
  const bool use_scale = scale != 1.0f;
  const int64_t block_m = use_scale || n > 4096 ? 128 : 64;
  plan.key = {{"UseScale", use_scale ? 1 : 0}, {"BlockM", block_m}};
  plan.data.total = n;
  plan.data.tile_num = (n + block_m - 1) / block_m;
  plan.data.scale = scale;
  plan.data.bias = bias;
  return plan;
}

}  // namespace scale_example
