// Kernels of Cast: one entry per (source, destination) dtype pair.
//
// Rounding: to float16/bfloat16 round to nearest even; to int32 truncate toward zero (as C++,
// numpy astype and torch do), saturating, NaN -> 0; same type is a copy. int32 -> bfloat16 goes
// through float with round-to-odd, which makes the second rounding (to nearest even) exact: the
// result is the correctly rounded bfloat16 of the integer, not a double rounding.
#include <cstdint>
#include <type_traits>

#include "../common/kernel_common.h"
#include "cast_tiling.h"

namespace tessera::ops {
namespace {

template <class S, class D>
inline constexpr bool kViaFloat = std::is_same_v<S, int32_t>&& std::is_same_v<D, bfloat16_t>;

template <class S, class D>
void CastTile(const LocalTensor<D>& dst, const LocalTensor<S>& src, const LocalTensor<float>& tmp,
              uint32_t n) {
  if constexpr (std::is_same_v<S, D>) {
    DataCopy(dst, src, AlignUp<S>(n));  // CopyIn zero-filled the tile up to the 32-byte block
  } else if constexpr (kViaFloat<S, D>) {
    Cast(tmp, src, RoundMode::CAST_ODD, n);
    Cast(dst, tmp, RoundMode::CAST_RINT, n);
  } else if constexpr (std::is_same_v<D, int32_t>) {
    Cast(dst, src, RoundMode::CAST_TRUNC, n);
  } else {
    Cast(dst, src, RoundMode::CAST_RINT, n);
  }
}

template <class S, class D>
__global__ __aicore__ void CastEntry(GM_ADDR x, GM_ADDR y, GM_ADDR /*workspace*/, GM_ADDR tiling) {
  GET_TILING_DATA_WITH_STRUCT(CastTilingData, t, tiling);
  const tiling::UniformSplitConfig split = SplitOf(t);
  const uint64_t offset = split.CoreOffset(GetBlockIdx());
  const uint64_t count = split.CoreElementCount(GetBlockIdx());
  if (count == 0) return;
  GlobalTensor<S> xGm;
  GlobalTensor<D> yGm;
  xGm.SetGlobalBuffer(reinterpret_cast<S*>(x) + offset, count);
  yGm.SetGlobalBuffer(reinterpret_cast<D*>(y) + offset, count);
  TPipe pipe;
  TBuf<TPosition::VECCALC> tmpBuf;
  LocalTensor<float> tmp;
  const auto tile = static_cast<uint32_t>(t.tileLength);
  if constexpr (kViaFloat<S, D>) {
    pipe.InitBuffer(tmpBuf, tile * static_cast<uint32_t>(sizeof(float)));
    tmp = tmpBuf.Get<float>();
  }
  StreamTiles(pipe, xGm, yGm, count, tile,
              [&](const LocalTensor<D>& out, const LocalTensor<S>& in, uint32_t len) {
                CastTile(out, in, tmp, len);
              });
}

#define TESSERA_CAST_ENTRY(S, D)                                                       \
  TESSERA_KERNEL_ENTRY(cast, CastKey(DataTypeOf<S>::value, DataTypeOf<D>::value), AIV, \
                       CastEntry<S, D>)
#define TESSERA_CAST_FROM(S)        \
  TESSERA_CAST_ENTRY(S, float)      \
  TESSERA_CAST_ENTRY(S, half)       \
  TESSERA_CAST_ENTRY(S, bfloat16_t) \
  TESSERA_CAST_ENTRY(S, int32_t)

TESSERA_CAST_FROM(float)
TESSERA_CAST_FROM(half)
TESSERA_CAST_FROM(bfloat16_t)
TESSERA_CAST_FROM(int32_t)

}  // namespace
}  // namespace tessera::ops
