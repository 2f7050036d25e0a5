"""TilingKey: compile-time variants of a kernel, PyPTO Pro's ``pypto_pro.runtime.tilingkey``.

A key class declares ``TilingKeyField(bits=..., values=[...])`` attributes in order; the schema
gives each field a bit offset (the sum of the bits before it) and packs a launch key as the
*index* of each value in its field's ``values`` (tessera's KeySchema::Pack, Ascend C's UINT key
fields). An optional ``is_valid(self, key_tuple)`` rejects unsupported combinations.

Rules, checked when the schema is built (at ``@pl.jit`` decoration): bits > 0; values a non-empty
list of unique ints (not bool); len(values) <= 2**bits; total bits <= 64; at least one field.
A launch key must be a dict with exactly the schema's fields, each value in its field's values
(an int, not a bool or float), accepted by ``is_valid``.
"""
import itertools

from ..errors import InvalidArgument, InvalidType, InvalidVal

MAX_TOTAL_BITS = 64


class TilingKeyField:
    """One field of a TilingKey class: ``bits`` wide, taking one of ``values``."""

    __slots__ = ("bits", "values", "name", "offset")

    def __init__(self, *, bits, values):
        self.bits = bits
        self.values = values
        self.name = None
        self.offset = None

    def __set_name__(self, owner, name):
        self.name = name

    def __repr__(self):
        return "TilingKeyField(bits=%r, values=%r)" % (self.bits, self.values)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class TilingKeySchema:
    """The ordered fields of a TilingKey class, with packing and launch-time validation."""

    def __init__(self, key_class):
        self.key_class = key_class
        self.name = getattr(key_class, "__name__", repr(key_class))
        self.fields = []
        for attr, value in vars(key_class).items():
            if isinstance(value, TilingKeyField):
                field = TilingKeyField(bits=value.bits, values=value.values)
                field.name = attr
                self.fields.append(field)
        if not self.fields:
            raise InvalidArgument("TilingKey class '%s' has no TilingKeyField" % self.name)
        self._validate_and_assign_offsets()
        self.field_names = tuple(f.name for f in self.fields)
        self._index = [{v: i for i, v in enumerate(f.values)} for f in self.fields]
        is_valid = getattr(key_class, "is_valid", None)
        self._is_valid = None
        if is_valid is not None:
            if not callable(is_valid):
                raise InvalidType("TilingKey class '%s': is_valid must be a method" % self.name)
            instance = key_class.__new__(key_class)
            self._is_valid = getattr(instance, "is_valid")

    def _validate_and_assign_offsets(self):
        offset = 0
        for f in self.fields:
            where = "TilingKey field '%s.%s'" % (self.name, f.name)
            if not _is_int(f.bits):
                raise InvalidType("%s: bits must be an int, got %r" % (where, f.bits))
            if f.bits <= 0:
                raise InvalidVal("%s: bits must be > 0, got %d" % (where, f.bits))
            if not isinstance(f.values, (list, tuple)):
                raise InvalidType("%s: values must be a list of ints, got %r" % (where, f.values))
            if len(f.values) == 0:
                raise InvalidVal("%s: values must not be empty" % where)
            for v in f.values:
                if not _is_int(v):
                    raise InvalidType("%s: values must be ints (not bool, float or str), got %r"
                                      % (where, v))
            if len(set(f.values)) != len(f.values):
                dup = [v for v in f.values if list(f.values).count(v) > 1][0]
                raise InvalidVal("%s: duplicate value %d in values %r" % (where, dup,
                                                                          list(f.values)))
            if len(f.values) > (1 << f.bits):
                raise InvalidVal("%s: %d values do not fit in %d bits (at most %d)"
                                 % (where, len(f.values), f.bits, 1 << f.bits))
            f.values = tuple(f.values)
            f.offset = offset
            offset += f.bits
        if offset > MAX_TOTAL_BITS:
            raise InvalidVal("TilingKey '%s': total bits %d exceed %d (fields: %s)"
                             % (self.name, offset, MAX_TOTAL_BITS,
                                ", ".join("%s=%d" % (f.name, f.bits) for f in self.fields)))
        self.total_bits = offset

    def validate_concrete(self, key):
        """Checks a launch key dict; returns the tuple of values in field order."""
        if not isinstance(key, dict):
            raise InvalidType("TilingKey '%s': the launch key must be a dict {field: value}, got %s"
                              % (self.name, type(key).__name__))
        missing = [n for n in self.field_names if n not in key]
        if missing:
            raise InvalidArgument("TilingKey '%s': missing field(s) %s (expected exactly %s)"
                                  % (self.name, ", ".join(repr(m) for m in missing),
                                     list(self.field_names)))
        extra = [k for k in key if k not in self.field_names]
        if extra:
            raise InvalidArgument("TilingKey '%s': unknown field(s) %s (expected exactly %s)"
                                  % (self.name, ", ".join(repr(e) for e in extra),
                                     list(self.field_names)))
        values = []
        for f in self.fields:
            v = key[f.name]
            if not _is_int(v):
                raise InvalidType("TilingKey field '%s': value %r is not an int (allowed: %s)"
                                  % (f.name, v, list(f.values)))
            if v not in self._index[self.fields.index(f)]:
                raise InvalidVal("TilingKey field '%s': value %d is not one of %s"
                                 % (f.name, v, list(f.values)))
            values.append(v)
        values = tuple(values)
        if self._is_valid is not None and not self._is_valid(values):
            raise InvalidVal("TilingKey '%s': combination %s is rejected by is_valid"
                             % (self.name, dict(zip(self.field_names, values))))
        return values

    def pack(self, values):
        """The 64-bit key: each value's index in its field's values, at the field's offset."""
        packed = 0
        for f, index, v in zip(self.fields, self._index, values):
            packed |= index[v] << f.offset
        return packed

    def unpack(self, packed):
        out = {}
        for f in self.fields:
            idx = (packed >> f.offset) & ((1 << f.bits) - 1)
            if idx >= len(f.values):
                raise InvalidVal("TilingKey field '%s': index %d in key 0x%x is out of range"
                                 % (f.name, idx, packed))
            out[f.name] = f.values[idx]
        return out

    def enumerate_valid(self):
        """Every value combination (as dicts) accepted by is_valid."""
        out = []
        for combo in itertools.product(*(f.values for f in self.fields)):
            if self._is_valid is None or self._is_valid(combo):
                out.append(dict(zip(self.field_names, combo)))
        return out
