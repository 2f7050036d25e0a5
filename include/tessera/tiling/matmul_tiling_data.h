// TCubeTiling, the tiling struct of the high-level Matmul API, on its own so kernels built as C++17
// (CANN's standard) can read it. In C++20 it is a TilingData struct (introspection, embedding with
// TILING_DATA_FIELD_DEF_STRUCT); in C++17 it is the same fields in the same layout without the
// field table, which only host tools use.
#pragma once

#include <cstdint>

#define TESSERA_CUBE_TILING_FIELDS_(X) \
  X(usedCoreNum)                       \
  X(M)                                 \
  X(N)                                 \
  X(Ka)                                \
  X(Kb)                                \
  X(singleCoreM)                       \
  X(singleCoreN)                       \
  X(singleCoreK)                       \
  X(baseM)                             \
  X(baseN)                             \
  X(baseK)                             \
  X(depthA1)                           \
  X(depthB1)                           \
  X(stepM)                             \
  X(stepN)                             \
  X(isBias)                            \
  X(transLength)                       \
  X(iterateOrder)                      \
  X(shareMode)                         \
  X(shareL1Size)                       \
  X(shareL0CSize)                      \
  X(shareUbSize)                       \
  X(batchM)                            \
  X(batchN)                            \
  X(singleBatchM)                      \
  X(singleBatchN)                      \
  X(stepKa)                            \
  X(stepKb)                            \
  X(depthAL1CacheUB)                   \
  X(depthBL1CacheUB)                   \
  X(dbL0A)                             \
  X(dbL0B)                             \
  X(dbL0C)                             \
  X(ALayoutInfoB)                      \
  X(ALayoutInfoS)                      \
  X(ALayoutInfoN)                      \
  X(ALayoutInfoG)                      \
  X(ALayoutInfoD)                      \
  X(BLayoutInfoB)                      \
  X(BLayoutInfoS)                      \
  X(BLayoutInfoN)                      \
  X(BLayoutInfoG)                      \
  X(BLayoutInfoD)                      \
  X(CLayoutInfoB)                      \
  X(CLayoutInfoS1)                     \
  X(CLayoutInfoN)                      \
  X(CLayoutInfoG)                      \
  X(CLayoutInfoS2)                     \
  X(BatchNum)                          \
  X(mxTypePara)

#if __cplusplus >= 202002L
#include "tessera/tiling/tiling_data.h"
#endif

namespace tessera::tiling {

// The vendor's TCubeTiling, field for field. Meaning (sizes in elements):
//   usedCoreNum            cores that get a block: ceil(M/singleCoreM) * ceil(N/singleCoreN)
//   M, N, Ka, Kb           the original matrices: A is M x Ka, B is Kb x N, C is M x N (row
//   pitches) singleCoreM/N/K        the block one core computes (K is never split: singleCoreK = K)
//   baseM/N/K              the block one Mmad computes (L0A/L0B/L0C tiles)
//   depthA1, depthB1       base blocks of A/B held in L1 (stepM*stepKa*db, stepN*stepKb*db)
//   stepM, stepN           base blocks along M/N per L1 load
//   stepKa, stepKb         baseK chunks of A/B per L1 load
//   isBias                 1 when C = A*B + bias
//   iterateOrder           0: M varies fastest when walking the base blocks of a core, 1: N
//   dbL0A/dbL0B/dbL0C      1 or 2: L0 buffers used in turn
//   shareL1Size/L0CSize/UbSize  buffer space the tiling was computed for (bytes)
// The batch, layout and share-mode fields are carried for layout compatibility; tessera's Matmul
// computes one (non-batched) matrix product and requires them to be 0.
#if __cplusplus >= 202002L
#define TESSERA_CUBE_TILING_FIELD_(name) TESSERA_TILING_FIELD_DEF_INT32_(name)
TESSERA_BEGIN_TILING_DATA_DEF_(TCubeTiling)
TESSERA_CUBE_TILING_FIELDS_(TESSERA_CUBE_TILING_FIELD_)
TESSERA_END_TILING_DATA_DEF_;
#else
#define TESSERA_CUBE_TILING_FIELD_(name) int32_t name{};
struct TCubeTiling {
  TESSERA_CUBE_TILING_FIELDS_(TESSERA_CUBE_TILING_FIELD_)
};
#endif
#undef TESSERA_CUBE_TILING_FIELD_

static_assert(sizeof(TCubeTiling) == 200, "TCubeTiling is 50 int32 fields, as on the NPU");

}  // namespace tessera::tiling
