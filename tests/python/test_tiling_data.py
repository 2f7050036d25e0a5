"""TilingData: types, array bounds, defaults, construction errors, layout and serialisation."""
from __future__ import annotations

import ctypes
import dataclasses
import random
import struct
from dataclasses import dataclass, field

import pytest

import tessera
from tessera import tiling


@dataclass
class Arrays:
    a: int[4]
    b: float[2]
    c: bool[3]


@dataclass
class ComplexLayout:
    a: int[60]
    b: bool
    c: int[2]
    d: float
    e: bool[5]
    f: float
    g: int[32]


@dataclass
class WithDefaults:
    length: int
    scale: float = 1.0
    offsets: int[4] = field(default_factory=lambda: [0, 0, 0, 0])
    on: bool = True


def test_array_types_parse():
    fields = tiling.get_tiling_fields(Arrays)
    assert [(f.name, f.type, f.length, f.is_array) for f in fields] == [
        ("a", "int", 4, True), ("b", "float", 2, True), ("c", "bool", 3, True)]


@pytest.mark.parametrize("annotation,exc", [
    ("str[4]", tessera.InvalidType), ("int[0]", tessera.InvalidVal),
    ("int[-1]", tessera.InvalidVal), ("bool[True]", tessera.InvalidType),
    ("int[2049]", tessera.InvalidVal), ("int[n]", tessera.InvalidType),
    ("list", tessera.InvalidType), ("int[2.0]", tessera.InvalidType),
])
def test_invalid_annotations_raise(annotation, exc):
    cls = dataclasses.make_dataclass("Bad", [("x", annotation)])
    with pytest.raises(exc, match="Bad.x"):
        tiling.layout_of(cls)


def test_array_bounds():
    ok = dataclasses.make_dataclass("Big", [("x", "int[2048]"), ("y", "bool[1]")])
    layout = tiling.layout_of(ok)
    assert layout.size == 2048 * 8 + 8
    with pytest.raises(ValueError, match="Array size must not exceed 2048, got 2049"):
        tiling.layout_of(dataclasses.make_dataclass("Big2", [("x", "int[2049]")]))


def test_at_least_one_field_and_not_a_dataclass():
    with pytest.raises(tessera.InvalidArgument, match="at least one field"):
        tiling.layout_of(dataclasses.make_dataclass("Empty", []))
    assert tiling.is_tiling_class(int) is False

    class Plain:
        x: int

    assert tiling.is_tiling_class(Plain) is False


def test_duplicate_field_detected_from_source():
    @dataclass
    class Dup:
        x: int
        y: int
        x: float  # noqa: F811 - the duplicate under test

    with pytest.raises(tessera.InvalidArgument, match="Tiling class 'Dup' has duplicate field 'x'"):
        tiling.layout_of(Dup)


def test_inheritance_is_honoured():
    @dataclass
    class Base:
        a: int

    @dataclass
    class Child(Base):
        b: float

    assert [f.name for f in tiling.get_tiling_fields(Child)] == ["a", "b"]


def test_reference_layout_offsets():
    @dataclass
    class Ref:
        rows: int
        cols: int
        scale: float
        strides: int[2]

    layout = tiling.layout_of(Ref)
    assert [f.offset for f in layout.fields] == [0, 8, 16, 24]
    assert layout.size == 40


def test_complex_layout_matches_ctypes():
    layout = tiling.layout_of(ComplexLayout)
    assert layout.size == 776
    assert [f.offset for f in layout.fields] == [0, 480, 488, 504, 508, 516, 520]
    st = tiling.get_tiling_ctype_struct(ComplexLayout)
    assert ctypes.sizeof(st) == 776
    assert [getattr(st, n).offset for n in "abcdefg"] == [0, 480, 488, 504, 508, 516, 520]


def _random_complex(rng):
    return ComplexLayout(a=[rng.randint(-2**63, 2**63 - 1) for _ in range(60)],
                         b=rng.random() < 0.5, c=[rng.randint(-1000, 1000) for _ in range(2)],
                         d=rng.uniform(-1e6, 1e6), e=[rng.random() < 0.5 for _ in range(5)],
                         f=rng.uniform(-1, 1), g=[rng.randint(-2**40, 2**40) for _ in range(32)])


def test_serialisation_round_trip_and_ctypes_identity():
    rng = random.Random(7)
    for _ in range(20):
        inst = _random_complex(rng)
        data = tiling.tiling_instance_to_bytes(inst)
        assert len(data) == 776
        st = tiling.get_tiling_ctype_struct(ComplexLayout)
        c = st.from_buffer_copy(data)
        assert list(c.a) == inst.a and c.b == inst.b and list(c.e) == inst.e
        assert bytes(c) == data  # ctypes zero-fills padding too
        back = tiling.tiling_from_bytes(ComplexLayout, data)
        assert back.a == inst.a and back.g == inst.g
        assert back.d == struct.unpack("f", struct.pack("f", inst.d))[0]
        assert data[481:488] == bytes(7) and data[513:516] == bytes(3)
        assert tiling.tiling_instance_to_bytes(inst) == data  # deterministic


def test_defaults():
    t = WithDefaults(length=5)
    data = tiling.tiling_instance_to_bytes(t)
    assert struct.unpack_from("=qf", data, 0) == (5, 1.0)
    assert struct.unpack_from("=4q", data, 16) == (0, 0, 0, 0)
    assert data[48] == 1


@pytest.mark.parametrize("kwargs,exc,fragment", [
    ({"length": 1, "offsets": [1, 2, 3]}, tessera.InvalidVal,
     "Tiling field 'offsets' expected 4 elements, got 3"),
    ({"length": 1, "offsets": 5}, tessera.InvalidType, "indexable sequence"),
    ({"length": 1.5}, tessera.InvalidType, "Tiling field 'length' expects an int, got 1.5"),
    ({"length": True}, tessera.InvalidType, "'length' expects an int"),
    ({"length": 2**63}, tessera.InvalidVal, "does not fit in int64"),
    ({"length": 1, "scale": "x"}, tessera.InvalidType, "'scale' expects a float"),
    ({"length": 1, "scale": 1e39}, tessera.InvalidVal, "out of float32 range"),
    ({"length": 1, "on": 2}, tessera.InvalidType, "'on' expects a bool, got 2"),
    ({"length": 1, "offsets": [0, 0, "a", 0]}, tessera.InvalidType, "'offsets'\\[2\\]"),
])
def test_construction_errors_name_field_and_value(kwargs, exc, fragment):
    with pytest.raises(exc, match=fragment):
        tiling.tiling_instance_to_bytes(WithDefaults(**kwargs))


def test_schema_hash_changes_with_layout():
    @dataclass
    class A:
        x: int
        y: float

    @dataclass
    class B:
        y: float
        x: int

    @dataclass
    class C:
        x: int[1]
        y: float

    hashes = {tiling.schema_hash(A), tiling.schema_hash(B), tiling.schema_hash(C)}
    assert len(hashes) == 3
