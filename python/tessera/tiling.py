"""TilingData: a dataclass of run-time kernel parameters with the C++ struct's exact layout.

Fields are ``int`` (int64), ``float`` (fp32), ``bool``, or fixed arrays ``int[N]``, ``float[N]``,
``bool[N]`` with a literal N in 1..2048 (write ``from __future__ import annotations`` so the array
annotations stay text). Defaults follow dataclass rules. The layout is the native C layout of the
fields in order (what ``BEGIN_TILING_DATA_DEF`` declares in C++): serialised bytes, padding (zero)
and the schema hash (FNV-1a 64 over sizeof and each field's name, type, offset, length and
array-ness) equal tessera::tiling's on both sides.
"""
import ast
import ctypes
import dataclasses
import inspect
import math
import struct
import textwrap

from .errors import InvalidArgument, InvalidType, InvalidVal

MAX_ARRAY_SIZE = 2048

# type name -> (code in the schema hash, element size, struct format, C++ type, ctypes type)
_TYPES = {
    "int": (0, 8, "q", "int64_t", ctypes.c_int64),
    "float": (1, 4, "f", "float", ctypes.c_float),
    "bool": (2, 1, "?", "bool", ctypes.c_bool),
}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_FP32_MAX = 3.4028234663852886e38


class TilingField:
    __slots__ = ("name", "type", "length", "is_array", "offset")

    def __init__(self, name, type_, length, is_array, offset):
        self.name = name
        self.type = type_
        self.length = length
        self.is_array = is_array
        self.offset = offset

    @property
    def element_size(self):
        return _TYPES[self.type][1]

    def __repr__(self):
        t = "%s[%d]" % (self.type, self.length) if self.is_array else self.type
        return "TilingField(%s: %s @ %d)" % (self.name, t, self.offset)


class TilingLayout:
    """Fields with offsets, sizeof, alignment and schema hash of a TilingData class."""

    def __init__(self, cls, fields, size, alignment):
        self.cls = cls
        self.name = cls.__name__
        self.fields = fields
        self.size = size
        self.alignment = alignment
        self.hash = _schema_hash(fields, size)
        self._defaults = {}
        self._pack_plan = [(f, _TYPES[f.type][2]) for f in fields]


def _fnv(h, v, nbytes):
    for i in range(nbytes):
        h ^= (v >> (8 * i)) & 0xFF
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _schema_hash(fields, size):
    h = _fnv(0xCBF29CE484222325, size, 8)
    for f in fields:
        for c in f.name.encode("utf-8"):
            h = _fnv(h, c, 1)
        h = _fnv(h, 0, 1)
        h = _fnv(h, _TYPES[f.type][0], 1)
        h = _fnv(h, f.offset, 4)
        h = _fnv(h, f.length, 4)
        h = _fnv(h, 1 if f.is_array else 0, 1)
    return h


def _parse_annotation(cls_name, name, annotation):
    """(type name, length, is_array) of a field annotation; InvalidType when it is not one."""
    where = "Tiling field '%s.%s'" % (cls_name, name)
    if isinstance(annotation, type):
        text = annotation.__name__
    elif isinstance(annotation, str):
        text = annotation
    else:
        raise InvalidType("%s: annotation %r is not int, float, bool or T[N]" % (where, annotation))
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise InvalidType("%s: annotation '%s' is not int, float, bool or T[N]" % (where, text)) \
            from None
    if isinstance(node, ast.Name):
        if node.id in _TYPES:
            return node.id, 1, False
        raise InvalidType("%s: type '%s' is not supported (int, float, bool or T[N])"
                          % (where, node.id))
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        if node.value.id not in _TYPES:
            raise InvalidType("%s: array element type '%s' is not supported (int, float or bool)"
                              % (where, node.value.id))
        size = node.slice
        if isinstance(size, ast.UnaryOp) and isinstance(size.op, ast.USub) and \
                isinstance(size.operand, ast.Constant):
            raise InvalidVal("%s: array size must be between 1 and %d, got -%r"
                             % (where, MAX_ARRAY_SIZE, size.operand.value))
        if not isinstance(size, ast.Constant) or isinstance(size.value, bool) or \
                not isinstance(size.value, int):
            raise InvalidType("%s: array size must be an integer literal, got '%s'"
                              % (where, ast.unparse(size)))
        n = size.value
        if n < 1:
            raise InvalidVal("%s: array size must be between 1 and %d, got %d"
                             % (where, MAX_ARRAY_SIZE, n))
        if n > MAX_ARRAY_SIZE:
            raise InvalidVal("%s: Array size must not exceed %d, got %d"
                             % (where, MAX_ARRAY_SIZE, n))
        return node.value.id, n, True
    raise InvalidType("%s: annotation '%s' is not int, float, bool or T[N]" % (where, text))


def _check_duplicates(cls):
    """Python keeps one annotation per name; the class source shows a duplicate field."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            seen = set()
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    if stmt.target.id in seen:
                        raise InvalidArgument("Tiling class '%s' has duplicate field '%s'"
                                              % (cls.__name__, stmt.target.id))
                    seen.add(stmt.target.id)
            return


_LAYOUTS = {}


def layout_of(cls):
    """The TilingLayout of a TilingData dataclass (cached); raises for an invalid class."""
    layout = _LAYOUTS.get(cls)
    if layout is not None:
        return layout
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
        raise InvalidType("TilingData '%r' must be a dataclass" % (cls,))
    _check_duplicates(cls)
    fields = []
    offset = 0
    alignment = 1
    for f in dataclasses.fields(cls):
        type_, length, is_array = _parse_annotation(cls.__name__, f.name, f.type)
        a = _TYPES[type_][1]
        offset = (offset + a - 1) // a * a
        fields.append(TilingField(f.name, type_, length, is_array, offset))
        offset += a * length
        alignment = max(alignment, a)
    if not fields:
        raise InvalidArgument("Tiling class '%s' needs at least one field" % cls.__name__)
    size = (offset + alignment - 1) // alignment * alignment
    layout = TilingLayout(cls, fields, size, alignment)
    _LAYOUTS[cls] = layout
    return layout


def is_tiling_class(cls):
    """True for a valid TilingData dataclass; False for anything that is not a dataclass. A
    dataclass with an unsupported field raises (PyPTO quietly answers False)."""
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
        return False
    layout_of(cls)
    return True


def get_tiling_fields(cls):
    return list(layout_of(cls).fields)


def schema_hash(cls):
    return layout_of(cls).hash


def _element(field, v, index=None):
    where = "Tiling field '%s'%s" % (field.name, "" if index is None else "[%d]" % index)
    if field.type == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            try:
                import numpy as np
                if isinstance(v, np.integer):
                    v = int(v)
            except ImportError:
                pass
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidType("%s expects an int, got %r" % (where, v))
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise InvalidVal("%s: value %d does not fit in int64" % (where, v))
        return v
    if field.type == "float":
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            try:
                import numpy as np
                if isinstance(v, (np.floating, np.integer)):
                    v = float(v)
            except ImportError:
                pass
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InvalidType("%s expects a float, got %r" % (where, v))
        v = float(v)
        if math.isfinite(v) and abs(v) > _FP32_MAX:
            raise InvalidVal("%s: value %r is out of float32 range" % (where, v))
        return v
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    raise InvalidType("%s expects a bool, got %r" % (where, v))


def tiling_instance_to_bytes(instance):
    """The bytes the kernel receives: the struct's native layout, padding zero."""
    layout = layout_of(type(instance))
    buf = bytearray(layout.size)
    for f, fmt in layout._pack_plan:
        value = getattr(instance, f.name)
        if f.is_array:
            try:
                n = len(value)
            except TypeError:
                raise InvalidType("Tiling field '%s' expected an indexable sequence of %d "
                                  "elements, got %r" % (f.name, f.length, value)) from None
            if n != f.length:
                raise InvalidVal("Tiling field '%s' expected %d elements, got %d"
                                 % (f.name, f.length, n))
            items = [_element(f, value[i], i) for i in range(n)]
            struct.pack_into("=%d%s" % (f.length, fmt), buf, f.offset, *items)
        else:
            struct.pack_into("=" + fmt, buf, f.offset, _element(f, value))
    return bytes(buf)


def tiling_from_bytes(cls, data):
    layout = layout_of(cls)
    if len(data) < layout.size:
        raise InvalidArgument("Tiling buffer too short for '%s': need %d bytes, got %d"
                              % (layout.name, layout.size, len(data)))
    kwargs = {}
    for f, fmt in layout._pack_plan:
        if f.is_array:
            kwargs[f.name] = list(struct.unpack_from("=%d%s" % (f.length, fmt), data, f.offset))
        else:
            kwargs[f.name] = struct.unpack_from("=" + fmt, data, f.offset)[0]
    return cls(**kwargs)


def get_tiling_ctype_struct(cls):
    """A ctypes.Structure with the same fields (native alignment, as the C++ struct)."""
    layout = layout_of(cls)
    fields = []
    for f in layout.fields:
        ct = _TYPES[f.type][4]
        fields.append((f.name, ct * f.length if f.is_array else ct))
    return type(layout.name + "_ctypes", (ctypes.Structure,), {"_fields_": fields})


def cxx_struct(cls, struct_name=None):
    """The C++ declaration with tessera's macros (used by generated kernels and tests)."""
    layout = layout_of(cls)
    lines = ["BEGIN_TILING_DATA_DEF(%s)" % (struct_name or layout.name)]
    for f in layout.fields:
        ct = _TYPES[f.type][3]
        if f.is_array:
            lines.append("  TILING_DATA_FIELD_DEF_ARR(%s, %d, %s)" % (ct, f.length, f.name))
        else:
            lines.append("  TILING_DATA_FIELD_DEF(%s, %s)" % (ct, f.name))
    lines.append("END_TILING_DATA_DEF;")
    return "\n".join(lines) + "\n"
