"""The kernel language, PyPTO Pro's names: ``import tessera.language as pl``.

Kernels are Python functions decorated with ``@pl.jit``; their bodies are compiled, not run. The
functions below are declarations for the compiler: called outside a kernel they raise, as in
PyPTO (``pl.range`` returns ``builtins.range`` and the sections are empty context managers).

Supported subset: ``pl.Ptr[dt]`` / ``pl.Tensor[[dims], dt]`` / ``pl.DT_*`` scalar parameters and
one TilingData dataclass last; ``make_tensor``; ``TileType`` and ``make_tile`` / ``make_tile_group``
in UB (``MemorySpace.Vec``), L1 (``Mat``), L0A (``Left``), L0B (``Right``) and L0C (``Acc``);
``load``/``store`` (and ``load_tile``/``store_tile``); the vector ops in destination-passing style;
the cube ops ``move``, ``matmul``, ``matmul_acc``; ``pl.range``, ``if``/``while``/``break``/
``continue``/``return``; ``pl.min``/``pl.max``; ``get_block_idx/num``, ``get_subblock_idx/num``;
``section_vector`` and ``section_cube`` (both in one kernel: a MIX kernel).
"""
import builtins
import contextlib
import enum

from .. import dtypes as _dt
from ..dtypes import DataType  # noqa: F401

DT_FP32 = _dt.FP32
DT_FP16 = _dt.FP16
DT_BF16 = _dt.BF16
DT_INT8 = _dt.INT8
DT_INT16 = _dt.INT16
DT_INT32 = _dt.INT32
DT_INT64 = _dt.INT64
DT_UINT8 = _dt.UINT8
DT_BOOL = _dt.BOOL


class _Marker:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "pl." + self.name


DYNAMIC = _Marker("DYNAMIC")
STATIC = _Marker("STATIC")


class PtrType:
    """``pl.Ptr[dtype]``: a raw global-memory pointer parameter."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __repr__(self):
        return "pl.Ptr[%r]" % (self.dtype,)


class TensorType:
    """``pl.Tensor[[dims], dtype]``: a tensor parameter; a dim is an int, DYNAMIC, STATIC or ...
    (every non-int dim is read at launch; STATIC does not recompile per value here)."""

    def __init__(self, dims, dtype):
        self.dims = list(dims)
        self.dtype = dtype

    def __repr__(self):
        return "pl.Tensor[%r, %r]" % (self.dims, self.dtype)


class _PtrFactory:
    def __getitem__(self, dtype):
        return PtrType(dtype)


class _TensorFactory:
    def __getitem__(self, item):
        dims, dtype = item
        return TensorType(dims, dtype)

    def __call__(self, dims, dtype):
        return TensorType(dims, dtype)


Ptr = _PtrFactory()
Tensor = _TensorFactory()


class MemorySpace(enum.Enum):
    Vec = "Vec"
    Mat = "Mat"
    Left = "Left"
    Right = "Right"
    Acc = "Acc"
    Scaling = "Scaling"
    ScaleLeft = "ScaleLeft"
    ScaleRight = "ScaleRight"
    DDR = "DDR"
    Bias = "Bias"


# Address alignment per memory space (PyPTO's values).
ALIGNMENT = {MemorySpace.Vec: 32, MemorySpace.Mat: 32, MemorySpace.Left: 512,
             MemorySpace.Right: 512, MemorySpace.Acc: 64, MemorySpace.ScaleLeft: 32,
             MemorySpace.ScaleRight: 32}

# Memory spaces a TileType may name (the others have no instructions here).
_TILE_SPACES = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right,
                MemorySpace.Acc)


class TileType:
    """A compile-time 2-D tile descriptor. The shape must be compile-time ints (literals,
    module constants, TilingKey fields), never TilingData values."""

    def __init__(self, shape, dtype, target_memory=MemorySpace.Vec, valid_shape=None, layout=None,
                 fractal=None, pad=None, compact=None):
        from ..errors import InvalidType, InvalidVal
        if not isinstance(shape, (list, tuple)) or len(shape) != 2:
            raise InvalidVal("TileType: shape must be [rows, cols], got %r" % (shape,))
        for d in shape:
            if isinstance(d, bool) or not isinstance(d, int):
                raise InvalidType("TileType: shape %r must hold compile-time ints (TilingKey "
                                  "fields or constants, not TilingData values)" % (list(shape),))
            if d <= 0:
                raise InvalidVal("TileType: dims must be > 0, got %r" % (list(shape),))
        if not isinstance(dtype, DataType):
            raise InvalidType("TileType: dtype must be a pl.DT_* constant, got %r" % (dtype,))
        if not isinstance(target_memory, MemorySpace):
            raise InvalidType("TileType: target_memory must be a pl.MemorySpace, got %r"
                              % (target_memory,))
        if target_memory not in _TILE_SPACES:
            raise InvalidVal("TileType: target_memory %s is not supported (supported: %s)"
                             % (target_memory.name, ", ".join(m.name for m in _TILE_SPACES)))
        if valid_shape is not None or layout is not None or fractal is not None or \
                pad is not None or compact is not None:
            raise InvalidVal("TileType: valid_shape/layout/fractal/pad/compact are not supported "
                             "(loads and stores clip at the tensor's bounds instead)")
        self.shape = (int(shape[0]), int(shape[1]))
        self.dtype = dtype
        self.target_memory = target_memory
        if (self.shape[1] * dtype.itemsize) % 32 != 0:
            raise InvalidVal("TileType: a row of %d x %s is %d bytes; rows must be whole 32-byte "
                             "blocks" % (self.shape[1], dtype.name, self.shape[1] * dtype.itemsize))
        if target_memory is not MemorySpace.Vec:
            self._check_cube()

    def _check_cube(self):
        # The cube buffers hold fractals of 16 rows (16 x 16 in L0B and L0C), and the data path
        # here is the 2-byte one (fp16/bf16 inputs, fp32 accumulation).
        from ..errors import InvalidType, InvalidVal
        space = self.target_memory
        allowed = (_dt.FP32,) if space is MemorySpace.Acc else (_dt.FP16, _dt.BF16)
        if self.dtype not in allowed:
            raise InvalidType("TileType: %s tiles hold %s, got %r" % (
                space.name, " or ".join(repr(d) for d in allowed), self.dtype))
        rows, cols = self.shape
        if rows % 16:
            raise InvalidVal("TileType: %s tiles need rows in whole fractals of 16, got %r"
                             % (space.name, list(self.shape)))
        if space in (MemorySpace.Right, MemorySpace.Acc) and cols % 16:
            raise InvalidVal("TileType: %s tiles need columns in whole fractals of 16, got %r"
                             % (space.name, list(self.shape)))

    @property
    def is_cube(self):
        return self.target_memory is not MemorySpace.Vec

    @property
    def nbytes(self):
        return self.shape[0] * self.shape[1] * self.dtype.itemsize

    def __eq__(self, other):
        return isinstance(other, TileType) and (self.shape, self.dtype, self.target_memory) == \
            (other.shape, other.dtype, other.target_memory)

    def __hash__(self):
        return hash((self.shape, self.dtype.name, self.target_memory))

    def __repr__(self):
        if self.target_memory is MemorySpace.Vec:
            return "TileType(%r, %r)" % (list(self.shape), self.dtype)
        return "TileType(%r, %r, %s)" % (list(self.shape), self.dtype, self.target_memory)


class RoundMode:
    NONE = "none"
    RINT = "rint"
    FLOOR = "floor"
    CEIL = "ceil"
    ROUND = "round"
    TRUNC = "trunc"
    ODD = "odd"


def _dsl(name):
    def stub(*args, **kwargs):
        raise RuntimeError("This function is a DSL API declaration and must be used inside a "
                           "PyPTO kernel (pl.%s)" % name)
    stub.__name__ = name
    stub.__qualname__ = name
    stub._tessera_dsl = name
    return stub


_DSL_NAMES = (
    "make_tensor", "make_tile", "make_tile_group", "load", "store", "load_tile", "store_tile",
    "move", "matmul", "matmul_acc", "add", "sub", "mul", "div", "maximum", "minimum",
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "recip", "relu", "sigmoid", "tanh", "silu",
    "gelu", "cast", "copy", "fill", "get_block_idx", "get_block_num", "get_subblock_idx",
    "get_subblock_num", "min", "max", "const", "constexpr")
for _n in _DSL_NAMES:
    globals()[_n] = _dsl(_n)


def range(*args):  # noqa: A001 - PyPTO's name
    return builtins.range(*args)


range._tessera_dsl = "range"


@contextlib.contextmanager
def section_vector():
    yield


section_vector._tessera_dsl = "section_vector"


@contextlib.contextmanager
def section_cube():
    yield


section_cube._tessera_dsl = "section_cube"


def __getattr__(name):
    if name in ("jit", "kernel"):
        from ..jit import jit
        return jit
    raise AttributeError("module 'tessera.language' has no attribute '%s'" % name)
