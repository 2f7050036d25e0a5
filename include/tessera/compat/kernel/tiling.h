// Kernel-side tiling registration as Ascend C writes it for plain structs:
//
//   struct AddTiling { uint32_t totalLength; uint32_t tileNum; };
//   __global__ __vector__ void add(GM_ADDR x, GM_ADDR tiling) {
//     REGISTER_TILING_DEFAULT(AddTiling);
//     GET_TILING_DATA(t, tiling);        // const AddTiling t, copied from global memory
//
// The struct must be trivially copyable (the host wrote its bytes). GET_TILING_DATA_WITH_STRUCT is
// tessera's (tessera/tiling/tiling_data.h), for structs declared with BEGIN_TILING_DATA_DEF.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera::compat {

template <class T>
T LoadTilingData(const void* tiling) {
  static_assert(std::is_trivially_copyable_v<T>,
                "GET_TILING_DATA: the tiling struct must be trivially copyable");
  T value;
  std::memcpy(static_cast<void*>(&value), tiling, sizeof(T));
  return value;
}

}  // namespace tessera::compat

#define REGISTER_TILING_DEFAULT(struct_type) using TesseraAscDefaultTiling_ = struct_type
#define GET_TILING_DATA(var, tiling)   \
  const TesseraAscDefaultTiling_ var = \
      ::tessera::compat::LoadTilingData<TesseraAscDefaultTiling_>(tiling)
