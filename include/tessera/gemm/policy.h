// Dispatch policies of the gemm block layer: tag structs with compile-time data only.
#pragma once

#include <cstdint>

namespace tessera::gemm {

// CATLASS's MmadAtlasA2Pingpong (with its generic MmadPingpong's separate L0 stage count):
// Stages_ L1 slots (A and B) and L0Stages_ L0A/L0B slots; the copy of the next L1 K tile overlaps
// the Mmads of the current one, and the L0 load of the next K part overlaps the Mmad of the
// current part (on the NPU; on a CPU the events only order and check). One L0 stage lets the L0
// K step double - on a CPU fewer, longer Mmads.
template <uint32_t Stages_ = 2, uint32_t L0Stages_ = Stages_>
struct MmadPingpong {
  static_assert(Stages_ >= 1 && Stages_ <= 4, "MmadPingpong: Stages_ must be 1..4");
  static_assert(L0Stages_ >= 1 && L0Stages_ <= 4, "MmadPingpong: L0Stages_ must be 1..4");
  static constexpr uint32_t Stages = Stages_;
  static constexpr uint32_t L0Stages = L0Stages_;
};

// Block swizzle directions (GemmIdentityBlockSwizzle's SwizzleDirection).
inline constexpr uint32_t kSwizzleZn = 0;  // bands of block-rows, walking N inside a band
inline constexpr uint32_t kSwizzleNz = 1;  // bands of block-columns, walking M inside a band

}  // namespace tessera::gemm
