// Dispatch policies of the elewise layers: tag structs with compile-time data only. The block
// engine reads them; nothing here has behaviour.
#pragma once

#include <cstdint>

namespace tessera::elewise::policy {

// How the block pipelines micro-tiles.
//   Stages_: micro-tiles in flight. 1 = copy-in, compute and copy-out of a tile in turn; 2 (double
//     buffering) = the inputs of tile k+1 are already being fetched while tile k computes; 3 = k+2.
//   MaxTileElems_: upper bound of the micro-tile (the UB capacity divided by the live registers
//     gives the other bound). On a CPU the UB is L1/L2; 1024 fp32 lanes keep a tile's registers
//     in L1.
//   StreamThresholdBytes_: outputs are written with non-temporal stores when the launch writes at
//     least this many bytes and the output is not read back by the Compute.
template <int Stages_ = 2, uint32_t MaxTileElems_ = 1024,
          uint64_t StreamThresholdBytes_ = uint64_t{16} << 20>
struct Pipeline {
  static_assert(Stages_ >= 1 && Stages_ <= 4, "policy::Pipeline: Stages_ must be 1..4");
  static_assert(MaxTileElems_ >= 64 && MaxTileElems_ % 64 == 0,
                "policy::Pipeline: MaxTileElems_ must be a multiple of 64, at least 64");
  static constexpr int Stages = Stages_;
  static constexpr uint32_t MaxTileElems = MaxTileElems_;
  static constexpr uint64_t StreamThresholdBytes = StreamThresholdBytes_;
};

using SingleBuffer = Pipeline<1>;
using DoubleBuffer = Pipeline<2>;

}  // namespace tessera::elewise::policy
