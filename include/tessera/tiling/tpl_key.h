// Ascend C template tiling keys (ASCENDC_TPL_*_DECL / GET_TPL_TILING_KEY), for kernels ported from
// Ascend C. Parameters are declared in order and packed least-significant first:
//  - DTYPE / FORMAT: the raw enum value, 8 bits (the value must be declared);
//  - BOOL: 0/1, 1 bit;
//  - UINT: the index into the expanded value list, at the declared width (1, 2, 4 or 8 bits).
// More than 64 bits in total, a wrong argument count or an undeclared value give the invalid key
// (all ones), as in Ascend C; EncodeTplKey says which of these happened.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tessera/core/status.h"

namespace tessera::tiling::ascendc {

inline constexpr uint64_t kInvalidTplKey = ~uint64_t{0};

enum class TplKind : uint8_t { kDtype, kFormat, kUint, kBool };

// First element of a UINT value spec; values match Ascend C's ASCENDC_TPL_UI_RANGE/LIST/MIX.
//   kRange: {kRange, nRanges, lo0, hi0, ...}            inclusive ranges
//   kList:  {kList, v0, v1, ...}
//   kMix:   {kMix, nRanges, lo0, hi0, ..., v0, v1, ...}  ranges expanded first, then the values
enum class TplUintList : int64_t { kRange = 0, kList = 1, kMix = 2 };

struct TplParam {
  std::string name;
  TplKind kind;
  int bits;
  std::vector<int64_t> values;  // declared values; for UINT the expanded list (key = index)
};

// ASCENDC_TPL_DTYPE_DECL / ASCENDC_TPL_FORMAT_DECL: values are enum codes in [0, 255], unique.
Result<TplParam> DtypeParam(std::string name, std::vector<int64_t> values);
Result<TplParam> FormatParam(std::string name, std::vector<int64_t> values);
// ASCENDC_TPL_BOOL_DECL: values are a non-empty subset of {0, 1}.
Result<TplParam> BoolParam(std::string name, std::vector<int64_t> values);
// ASCENDC_TPL_UINT_DECL: bit_width is 1, 2, 4 or 8; `spec` starts with a TplUintList code. Fails on
// a malformed spec, a range with lo > hi, a repeated value or more values than the width can index.
Result<TplParam> UintParam(std::string name, int bit_width, std::span<const int64_t> spec);

// The key of `args` (one per parameter, in order), or why there is none.
Result<uint64_t> EncodeTplKey(std::span<const TplParam> params, std::span<const int64_t> args);
// GET_TPL_TILING_KEY: EncodeTplKey, or kInvalidTplKey on any failure.
uint64_t GetTplTilingKey(std::span<const TplParam> params, std::span<const int64_t> args);

}  // namespace tessera::tiling::ascendc
