// int4b_t: a signed 4-bit integer (-8..7), the vendor's half-byte element type. Tensors of it pack
// two elements per byte, element 2i in the low nibble of byte i; counts, sizes and offsets of such
// tensors are in elements (nibbles). A lone int4b_t value occupies a byte.
#pragma once

#include <cstdint>
#include <type_traits>

namespace tessera::kernel {

struct int4b_t {
  uint8_t storage = 0;  // the low 4 bits

  constexpr int4b_t() = default;
  constexpr int4b_t(int32_t value) : storage(static_cast<uint8_t>(value) & 0xFu) {}   // NOLINT
  constexpr int4b_t(uint32_t value) : storage(static_cast<uint8_t>(value) & 0xFu) {}  // NOLINT
  // Sign-extended. Comparisons go through it (no operators of its own, so `x == 3` is not
  // ambiguous); the 16 values keep their order and equality.
  constexpr operator int8_t() const {  // NOLINT: widening is exact
    return static_cast<int8_t>((storage & 0x8u) != 0 ? storage | 0xF0u : storage);
  }
};

// Bits of one element of a tensor of T (4 for int4b_t).
template <class T>
inline constexpr uint32_t kElemBits = std::is_same_v<T, int4b_t> ? 4u : 8u * sizeof(T);

}  // namespace tessera::kernel
