"""Python TilingData and C++ BEGIN_TILING_DATA_DEF structs: same bytes (padding zero) and the same
schema hash. The C++ side is a hand-written struct compiled with g++, filled with the same values
over memory holding 0xaa (stack garbage) and serialised with tessera::tiling::SerializeTiling."""
from __future__ import annotations

import ctypes
import random
from dataclasses import dataclass

from test_tiling_data import ComplexLayout

from tessera import jit, tiling


@dataclass
class Small:
    a: bool
    b: float
    c: bool


@dataclass
class Mixed:
    rows: int
    flag: bool
    scale: float
    mask: bool[3]
    strides: int[2]
    weights: float[3]


_CXX = r'''
#include <cstring>
#include <new>
#include "tessera/tiling/tiling_data.h"

BEGIN_TILING_DATA_DEF(ComplexLayout)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 60, a)
  TILING_DATA_FIELD_DEF(bool, b)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, c)
  TILING_DATA_FIELD_DEF(float, d)
  TILING_DATA_FIELD_DEF_ARR(bool, 5, e)
  TILING_DATA_FIELD_DEF(float, f)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 32, g)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(Small)
  TILING_DATA_FIELD_DEF(bool, a)
  TILING_DATA_FIELD_DEF(float, b)
  TILING_DATA_FIELD_DEF(bool, c)
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(Mixed)
  TILING_DATA_FIELD_DEF(int64_t, rows)
  TILING_DATA_FIELD_DEF(bool, flag)
  TILING_DATA_FIELD_DEF(float, scale)
  TILING_DATA_FIELD_DEF_ARR(bool, 3, mask)
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, strides)
  TILING_DATA_FIELD_DEF_ARR(float, 3, weights)
END_TILING_DATA_DEF;

// Builds T over 0xaa bytes, sets its fields from `values` (the Python side's field values,
// element by element in the order of the field table), serialises it into `out`.
template <class T>
size_t Serialize(const double* values, uint8_t* out, uint64_t* hash) {
  alignas(T) unsigned char storage[sizeof(T)];
  std::memset(storage, 0xaa, sizeof(storage));
  T* t = new (storage) T;
  auto* base = reinterpret_cast<unsigned char*>(t);
  size_t k = 0;
  for (const auto& f : tessera::tiling::kTilingFields<T>) {
    for (uint32_t i = 0; i < f.length; ++i) {
      unsigned char* p = base + f.offset + i * f.element_size();
      const double v = values[k++];
      if (f.type == tessera::tiling::TilingFieldType::kInt64) {
        const int64_t x = static_cast<int64_t>(v);
        std::memcpy(p, &x, 8);
      } else if (f.type == tessera::tiling::TilingFieldType::kFloat32) {
        const float x = static_cast<float>(v);
        std::memcpy(p, &x, 4);
      } else {
        const bool x = v != 0;
        std::memcpy(p, &x, 1);
      }
    }
  }
  const std::vector<uint8_t> bytes = tessera::tiling::SerializeTiling(*t);
  std::memcpy(out, bytes.data(), bytes.size());
  *hash = tessera::tiling::TilingSchemaOf<T>().hash;
  return bytes.size();
}

#define EXPORT extern "C" __attribute__((visibility("default")))
EXPORT size_t ser_complex(const double* v, uint8_t* o, uint64_t* h) { return Serialize<ComplexLayout>(v, o, h); }
EXPORT size_t ser_small(const double* v, uint8_t* o, uint64_t* h) { return Serialize<Small>(v, o, h); }
EXPORT size_t ser_mixed(const double* v, uint8_t* o, uint64_t* h) { return Serialize<Mixed>(v, o, h); }
'''

_lib = None


def _cxx():
    global _lib
    if _lib is None:
        obj = jit.compile_source(_CXX, "tiling_identity_test")
        _lib = ctypes.CDLL(obj.path)
        for name in ("ser_complex", "ser_small", "ser_mixed"):
            fn = getattr(_lib, name)
            fn.restype = ctypes.c_size_t
            fn.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_char_p,
                           ctypes.POINTER(ctypes.c_uint64)]
    return _lib


def _flat(inst):
    out = []
    for f in tiling.get_tiling_fields(type(inst)):
        v = getattr(inst, f.name)
        out.extend(float(x) for x in (v if f.is_array else [v]))
    return out


def _compare(fn_name, inst):
    values = _flat(inst)
    buf = ctypes.create_string_buffer(4096)
    h = ctypes.c_uint64()
    n = getattr(_cxx(), fn_name)((ctypes.c_double * len(values))(*values), buf, ctypes.byref(h))
    py = tiling.tiling_instance_to_bytes(inst)
    assert n == len(py) == tiling.layout_of(type(inst)).size
    assert buf.raw[:n] == py
    assert h.value == tiling.schema_hash(type(inst))


def test_small_struct_bytes_and_hash():
    _compare("ser_small", Small(a=True, b=1.0, c=True))
    _compare("ser_small", Small(a=False, b=-0.375, c=True))


def test_mixed_struct_bytes_and_hash_random_values():
    rng = random.Random(11)
    for _ in range(10):
        # int values exactly representable in a double (the C side receives doubles)
        _compare("ser_mixed", Mixed(rows=rng.randint(-2**52, 2**52), flag=rng.random() < .5,
                                    scale=rng.uniform(-100, 100),
                                    mask=[rng.random() < .5 for _ in range(3)],
                                    strides=[rng.randint(-2**40, 2**40) for _ in range(2)],
                                    weights=[rng.uniform(-1, 1) for _ in range(3)]))


def test_complex_layout_bytes_and_hash():
    rng = random.Random(3)
    for _ in range(5):
        inst = ComplexLayout(a=[rng.randint(-2**52, 2**52) for _ in range(60)],
                             b=rng.random() < .5, c=[rng.randint(-9, 9) for _ in range(2)],
                             d=rng.uniform(-5, 5), e=[rng.random() < .5 for _ in range(5)],
                             f=rng.uniform(-5, 5), g=[rng.randint(-2**30, 2**30) for _ in range(32)])
        _compare("ser_complex", inst)
