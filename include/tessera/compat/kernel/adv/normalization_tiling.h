// The tiling structs of the vendor's normalization APIs as kernels read them (plain structs, one
// uint32_t or float per field, in the vendor's field order so the bytes the host's
// optiling::<Name>::SaveToBuffer writes load unchanged). Each is AscendC::tiling::<Name> and, as
// in the vendor's kernel headers, also ::<Name>. tessera's kernels read the shape fields
// (bLength, sLength, hLength, originalHLength, ...); the buffer-plan fields exist for layout
// compatibility and hold what the host filled in.
#pragma once

#include <cstdint>

// X-macro field lists, F(type, name), shared with the host classes (tiling/normalization/).
// clang-format off
#define TESSERA_LAYERNORM_TILING_FIELDS(F) \
  F(uint32_t, bLength)                     \
  F(uint32_t, sLength)                     \
  F(uint32_t, hLength)                     \
  F(uint32_t, originalHLength)             \
  F(uint32_t, inputXSize)                  \
  F(uint32_t, meanVarSize)                 \
  F(uint32_t, numberOfTmpBuf)              \
  F(uint32_t, meanTmpTensorPos)            \
  F(uint32_t, meanTmpTensorSize)           \
  F(uint32_t, varianceTmpTensorPos)        \
  F(uint32_t, varianceTmpTensorSize)       \
  F(uint32_t, tmpBufSize)                  \
  F(uint32_t, oneTmpSize)                  \
  F(uint32_t, firstTmpStartPos)            \
  F(uint32_t, secondTmpStartPos)           \
  F(uint32_t, thirdTmpStartPos)            \
  F(uint32_t, loopRound)                   \
  F(uint32_t, inputRoundSize)              \
  F(uint32_t, inputTailSize)               \
  F(uint32_t, inputTailPos)                \
  F(uint32_t, meanVarRoundSize)            \
  F(uint32_t, meanVarTailSize)             \
  F(uint32_t, meanVarTailPos)              \
  F(uint32_t, bshCurLength)                \
  F(uint32_t, bsCurLength)                 \
  F(float, lastDimValueBack)

#define TESSERA_LAYERNORM_GRAD_TILING_FIELDS(F) \
  F(uint32_t, stackBufferSize)                  \
  F(uint32_t, bLength)                          \
  F(uint32_t, sLength)                          \
  F(uint32_t, hLength)                          \
  F(uint32_t, originalHLength)                  \
  F(uint32_t, oneCalSize)                       \
  F(uint32_t, nohCalSize)                       \
  F(uint32_t, loopNum)                          \
  F(uint32_t, tailSize)                         \
  F(uint32_t, nohTailSize)                      \
  F(uint32_t, tmpTensorBSHPos)                  \
  F(uint32_t, tmpTensorBSHSize)                 \
  F(uint32_t, pdVarTensorPos)                   \
  F(uint32_t, pdVarTensorSize)                  \
  F(uint32_t, pdMeanTensorPos)                  \
  F(uint32_t, pdMeanTensorSize)                 \
  F(uint32_t, x1TensorPos)                      \
  F(uint32_t, x1TensorSize)                     \
  F(uint32_t, x2TensorPos)                      \
  F(uint32_t, x2TensorSize)                     \
  F(uint32_t, x3TensorPos)                      \
  F(uint32_t, x3TensorSize)                     \
  F(uint32_t, tmpTensorPos)                     \
  F(uint32_t, tmpTensorSize)                    \
  F(uint32_t, tmpTensor1Pos)                    \
  F(uint32_t, tmpTensor1Size)                   \
  F(uint32_t, tmpTensor2Pos)                    \
  F(uint32_t, tmpTensor2Size)                   \
  F(uint32_t, lastDimValueBack)                 \
  F(uint32_t, lastDimValueBackMulTwo)

#define TESSERA_LAYERNORM_GRAD_BETA_TILING_FIELDS(F) \
  F(uint32_t, stackBufferSize)                       \
  F(uint32_t, bLength)                               \
  F(uint32_t, sLength)                               \
  F(uint32_t, hLength)                               \
  F(uint32_t, originalHLength)                       \
  F(uint32_t, bshLength)                             \
  F(uint32_t, bsLength)                              \
  F(uint32_t, oneCalSize)                            \
  F(uint32_t, numberOfTmpBuf)                        \
  F(uint32_t, loopRound)                             \
  F(uint32_t, inputTailSize)                         \
  F(uint32_t, inputTailPos)                          \
  F(uint32_t, bsTailSize)                            \
  F(uint32_t, bshCurLength)                          \
  F(uint32_t, bsCurLength)                           \
  F(uint32_t, gammaTempTensorPos)                    \
  F(uint32_t, betaTempTensorPos)                     \
  F(uint32_t, inputDyTmpTensorPos)                   \
  F(uint32_t, resForGammaTmpTensorPos)               \
  F(uint32_t, reserved)
#define TESSERA_RMSNORM_TILING_FIELDS(F) \
  F(uint32_t, bLength)                   \
  F(uint32_t, sLength)                   \
  F(uint32_t, hLength)                   \
  F(uint32_t, originalHLength)           \
  F(float, reciprocalOfHLength)          \
  F(uint32_t, mainBshLength)             \
  F(uint32_t, mainBsLength)              \
  F(uint32_t, mainBsLengthAlign)         \
  F(uint32_t, loopRound)                 \
  F(uint32_t, inputTailPos)              \
  F(uint32_t, tailBshLength)             \
  F(uint32_t, tailBsLength)
// clang-format on

// The vendor's LayerNormSeparateTiling (LayerNorm with rstd output, on [A, R] rows); tessera
// reads aLength / rLength (LayerNormPara carries the same) and fills the rest as the shape gives.
// clang-format off
#define TESSERA_LAYERNORM_SEPARATE_TILING_FIELDS(F) \
  F(uint32_t, aLength)                   \
  F(uint32_t, rLength)                   \
  F(uint32_t, halfAddRepeatTimes)        \
  F(uint32_t, rHeadLength)               \
  F(float, k2Rec)                        \
  F(float, k2RRec)                       \
  F(uint32_t, inputXSize)                \
  F(uint32_t, meanVarSize)               \
  F(uint32_t, numberOfTmpBuf)            \
  F(uint32_t, varianceTmpTensorPos)      \
  F(uint32_t, varianceTmpTensorSize)     \
  F(uint32_t, tmpBufSize)                \
  F(uint32_t, oneTmpSize)                \
  F(uint32_t, firstTmpStartPos)          \
  F(uint32_t, secondTmpStartPos)         \
  F(uint32_t, thirdTmpStartPos)          \
  F(uint32_t, loopRound)                 \
  F(uint32_t, inputRoundSize)            \
  F(uint32_t, inputTailSize)             \
  F(uint32_t, inputTailPos)              \
  F(uint32_t, meanVarRoundSize)          \
  F(uint32_t, meanVarTailSize)           \
  F(uint32_t, meanVarTailPos)            \
  F(uint32_t, arCurLength)               \
  F(uint32_t, aCurLength)                \
  F(float, rValueBack)
// clang-format on

#define TESSERA_TILING_PLAIN_FIELD_(type, name) type name = 0;

namespace AscendC::tiling {
struct LayerNormTiling {
  TESSERA_LAYERNORM_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
struct LayerNormGradTiling {
  TESSERA_LAYERNORM_GRAD_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
// DeepNorm's tiling has LayerNorm's fields.
struct DeepNormTiling {
  TESSERA_LAYERNORM_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
struct RmsNormTiling {
  TESSERA_RMSNORM_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
struct LayerNormGradBetaTiling {
  TESSERA_LAYERNORM_GRAD_BETA_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
struct LayerNormSeparateTiling {
  TESSERA_LAYERNORM_SEPARATE_TILING_FIELDS(TESSERA_TILING_PLAIN_FIELD_)
};
}  // namespace AscendC::tiling

using AscendC::tiling::DeepNormTiling;
using AscendC::tiling::LayerNormGradBetaTiling;
using AscendC::tiling::LayerNormGradTiling;
using AscendC::tiling::LayerNormSeparateTiling;
using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::RmsNormTiling;
