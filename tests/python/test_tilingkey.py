"""PyPTO's hardware-free TilingKey behaviour: field rules, capacity, total bits, names, packing
and launch-key validation (raised from kernel[None, 1, key] before any argument is seen)."""
import pytest

import tessera
import tessera.language as pl
from tessera.runtime.tilingkey import TilingKeyField, TilingKeySchema


def schema(**fields):
    return TilingKeySchema(type("K", (), fields))


@pytest.mark.parametrize("bits,values,exc,fragment", [
    (0, [0], tessera.InvalidVal, "bits must be > 0"),
    (-1, [0], tessera.InvalidVal, "bits must be > 0"),
    (1, [], tessera.InvalidVal, "must not be empty"),
    (2, [1, 2.0], tessera.InvalidType, "values must be ints"),
    (2, [True, 2], tessera.InvalidType, "values must be ints"),
    (2, ["a"], tessera.InvalidType, "values must be ints"),
    (2, [3, 3], tessera.InvalidVal, "duplicate value 3"),
    (1, [0, 1, 2], tessera.InvalidVal, "3 values do not fit in 1 bits"),
])
def test_field_validation(bits, values, exc, fragment):
    with pytest.raises(exc, match=fragment) as info:
        schema(F=TilingKeyField(bits=bits, values=values))
    assert "K.F" in str(info.value)
    assert isinstance(info.value, ValueError)  # PyPTO raises ValueError for all of these


def test_capacity_allows_gaps_and_full_width():
    s = schema(F=TilingKeyField(bits=2, values=[7, 100, -5, 9]))
    assert s.pack((9,)) == 3
    assert s.pack((7,)) == 0


def test_total_bits():
    with pytest.raises(ValueError, match="total bits 66 exceed 64"):
        schema(A=TilingKeyField(bits=33, values=[0]), B=TilingKeyField(bits=33, values=[0]))
    s = schema(A=TilingKeyField(bits=32, values=[0, 1]), B=TilingKeyField(bits=32, values=[5, 6]))
    assert s.total_bits == 64
    assert s.pack((1, 6)) == 1 | (1 << 32)


def test_packing_uses_value_indices_at_bit_offsets():
    s = schema(UseScale=TilingKeyField(bits=1, values=[0, 1]),
               BlockM=TilingKeyField(bits=2, values=[64, 128]))
    assert [f.offset for f in s.fields] == [0, 1]
    assert s.pack(s.validate_concrete({"UseScale": 1, "BlockM": 128})) == 3
    assert s.unpack(3) == {"UseScale": 1, "BlockM": 128}
    wide = schema(A=TilingKeyField(bits=8, values=list(range(200))),
                  B=TilingKeyField(bits=16, values=[1000, 2000, 3000]))
    assert wide.pack((199, 3000)) == 199 | (2 << 8)


def test_enumerate_valid_filters_with_is_valid():
    class K:
        A = TilingKeyField(bits=1, values=[0, 1])
        B = TilingKeyField(bits=2, values=[64, 128, 256])

        def is_valid(self, key):
            return key != (1, 256)

    combos = TilingKeySchema(K).enumerate_valid()
    assert len(combos) == 5
    assert {"A": 1, "B": 256} not in combos


def test_no_fields():
    with pytest.raises(tessera.InvalidArgument, match="has no TilingKeyField"):
        TilingKeySchema(type("Empty", (), {}))


class Key:
    OpType = TilingKeyField(bits=2, values=[0, 1, 2])
    Flag = TilingKeyField(bits=1, values=[0, 1])

    def is_valid(self, key):
        return key != (2, 1)


@pl.jit(tiling_key=Key)
def keyed(x: pl.Ptr[pl.DT_FP32]):
    pass


@pytest.mark.parametrize("key,exc,fragment", [
    ({"OpType": 99, "Flag": 0}, tessera.InvalidVal, "'OpType': value 99 is not one of"),
    ({}, tessera.InvalidArgument, "missing field"),
    ({"OpType": 0}, tessera.InvalidArgument, "missing field\\(s\\) 'Flag'"),
    ({"OpType": 0, "Flag": 0, "ExtraField": 1}, tessera.InvalidArgument, "unknown field.*Extra"),
    (None, tessera.InvalidArgument, "has a TilingKey"),
    ([0], tessera.InvalidType, "must be a dict"),
    ({"OpType": 2, "Flag": 1}, tessera.InvalidVal, "rejected by is_valid"),
    ({"OpType": True, "Flag": 0}, tessera.InvalidType, "not an int"),
    ({"OpType": 1.0, "Flag": 0}, tessera.InvalidType, "not an int"),
])
def test_launch_key_validation(key, exc, fragment):
    with pytest.raises(exc, match=fragment):
        keyed[None, 1, key]
    with pytest.raises(ValueError):
        keyed[None, 1, key]


def test_keyed_kernel_cannot_be_called_directly():
    with pytest.raises(ValueError, match="compile-time specialization"):
        keyed(None)


def test_wrong_launch_forms():
    with pytest.raises(ValueError, match="Expected kernel"):
        keyed[None, 1, {"OpType": 0, "Flag": 0}, {}, 5]


def test_key_field_name_clashes():
    class Clash:
        x = TilingKeyField(bits=1, values=[0, 1])

    with pytest.raises(ValueError, match="same name as a parameter"):
        @pl.jit(tiling_key=Clash)
        def k1(x: pl.Ptr[pl.DT_FP32]):
            pass

    class Clash2:
        MODULE_CONSTANT = TilingKeyField(bits=1, values=[0, 1])

    with pytest.raises(ValueError, match="module-level variable"):
        @pl.jit(tiling_key=Clash2)
        def k2(y: pl.Ptr[pl.DT_FP32]):
            pass


MODULE_CONSTANT = 3


def test_bad_schema_fails_at_decoration():
    class Bad:
        A = TilingKeyField(bits=0, values=[0])

    with pytest.raises(ValueError, match="bits must be > 0"):
        @pl.jit(tiling_key=Bad)
        def k3(y: pl.Ptr[pl.DT_FP32]):
            pass


def test_unknown_jit_keyword():
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        pl.jit(tilingkey=Key)
