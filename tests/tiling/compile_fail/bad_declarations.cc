// Inputs for the CompileFailure tests: each TESSERA_BAD_CASE_<name> must fail to compile with a
// readable diagnostic; TESSERA_BAD_CASE_NONE (the same declarations done right) must compile.
#include "tessera/tiling/tiling_data.h"
#include "tessera/tiling/tiling_key.h"

using tessera::tiling::StaticKeySchema;
using tessera::tiling::Values;

BEGIN_TILING_DATA_DEF(GoodTiling)
  TILING_DATA_FIELD_DEF(int64_t, n)
  TILING_DATA_FIELD_DEF_ARR(float, 2048, table)
END_TILING_DATA_DEF;
static_assert(tessera::tiling::TilingSchemaOf<GoodTiling>().size == 8 + 2048 * 4);
inline constexpr StaticKeySchema kGoodKey({{"A", 1, Values<0, 1>}, {"B", 63, Values<5>}});

#if defined(TESSERA_BAD_CASE_ARRAY_0)
BEGIN_TILING_DATA_DEF(Bad)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 0, zero)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_ARRAY_2049)
BEGIN_TILING_DATA_DEF(Bad)
  TILING_DATA_FIELD_DEF_ARR(float, 2049, big)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_DOUBLE_FIELD)
BEGIN_TILING_DATA_DEF(Bad)
  TILING_DATA_FIELD_DEF(double, d)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_INT32_ARRAY)
BEGIN_TILING_DATA_DEF(Bad)
  TILING_DATA_FIELD_DEF_ARR(int32_t, 4, a)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_DUPLICATE_NAME)
BEGIN_TILING_DATA_DEF(Bad)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(float, rows)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_NO_FIELDS)
BEGIN_TILING_DATA_DEF(Bad)
END_TILING_DATA_DEF;
#elif defined(TESSERA_BAD_CASE_KEY_BITS_0)
constexpr StaticKeySchema kBad({{"A", 0, Values<0>}});
#elif defined(TESSERA_BAD_CASE_KEY_NO_VALUES)
constexpr StaticKeySchema kBad({{"A", 2, Values<>}});
#elif defined(TESSERA_BAD_CASE_KEY_DUP_VALUE)
constexpr StaticKeySchema kBad({{"A", 2, Values<64, 128, 64>}});
#elif defined(TESSERA_BAD_CASE_KEY_TOO_MANY_VALUES)
constexpr StaticKeySchema kBad({{"A", 1, Values<1, 2, 3>}});
#elif defined(TESSERA_BAD_CASE_KEY_65_BITS)
constexpr StaticKeySchema kBad({{"A", 1, Values<0, 1>}, {"B", 64, Values<5>}});
#elif defined(TESSERA_BAD_CASE_KEY_DUP_NAME)
constexpr StaticKeySchema kBad({{"A", 1, Values<0, 1>}, {"A", 2, Values<5>}});
#endif
