"""Turning user tensors (torch CPU tensors, numpy arrays, ``__dlpack__`` objects) into pointers,
shapes, strides and dtypes without copies."""
import ctypes
import sys

from . import _capi, dtypes
from .errors import InvalidArgument, InvalidType


class TensorInfo:
    __slots__ = ("ptr", "shape", "strides", "dtype", "owner")

    def __init__(self, ptr, shape, strides, dtype, owner):
        self.ptr = ptr              # address of element [0, ..., 0]
        self.shape = shape          # tuple of ints
        self.strides = strides      # tuple of ints, in elements
        self.dtype = dtype          # dtypes.DataType
        self.owner = owner          # what must stay alive while the device uses ptr

    def is_contiguous(self):
        expected = 1
        for dim, stride in zip(reversed(self.shape), reversed(self.strides)):
            if dim != 1 and stride != expected:
                return False
            expected *= dim
        return True

    def span_bytes(self):
        """Bytes from ptr to one past the farthest element (0 for an empty tensor)."""
        if any(d == 0 for d in self.shape):
            return 0
        last = sum((d - 1) * s for d, s in zip(self.shape, self.strides))
        return (last + 1) * self.dtype.itemsize


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

_K_DL_CPU = 1
_TORCH_DTYPES = {}  # torch.dtype -> DataType, filled on first sight


def _from_torch(t, what):
    if not t.is_cpu:
        raise InvalidArgument("%s: torch tensor on device '%s'; tessera runs on CPU tensors"
                              % (what, t.device))
    dt = _TORCH_DTYPES.get(t.dtype)
    if dt is None:
        dt = dtypes.BY_TORCH.get(str(t.dtype)[6:])
        if dt is None:
            raise InvalidType("%s: torch dtype %s is not supported (supported: %s)"
                              % (what, t.dtype, ", ".join("torch." + d.torch
                                                          for d in dtypes.ALL)))
        _TORCH_DTYPES[t.dtype] = dt
    return TensorInfo(t.data_ptr(), tuple(t.shape), t.stride(), dt, t)


_NUMPY_DTYPES = {}  # numpy dtype object -> DataType, filled on first sight
_c_char_from_buffer = ctypes.c_char.from_buffer
_addressof = ctypes.addressof


def _numpy_dtype(a, what):
    d = a.dtype
    dt = _NUMPY_DTYPES.get(d)
    if dt is None:
        dt = dtypes.BY_NUMPY.get(d.name)
        if dt is None or not d.isnative:
            raise InvalidType("%s: numpy dtype %s is not supported (supported: %s, native byte "
                              "order)" % (what, d, ", ".join(x.numpy for x in dtypes.ALL
                                                             if x.numpy)))
        _NUMPY_DTYPES[d] = dt
    return dt


def _numpy_address(a):
    # The buffer protocol is cheaper than __array_interface__ (which builds a dict); it refuses
    # read-only, non-contiguous and empty arrays, which take the general path.
    try:
        return _addressof(_c_char_from_buffer(a))
    except (TypeError, ValueError, BufferError):
        return a.__array_interface__["data"][0]


def _from_numpy(a, what):
    dt = _numpy_dtype(a, what)
    item = dt.itemsize
    strides = a.strides
    if any(st % item for st in strides):
        raise InvalidArgument("%s: numpy strides %s are not multiples of the element size %d"
                              % (what, strides, item))
    return TensorInfo(_numpy_address(a), a.shape, tuple(st // item for st in strides), dt, a)


def pointer_of(obj, what):
    """(address, DataType) of a tensor argument, without reading shape and strides (pl.Ptr
    parameters need only these; a launch does this once per pointer argument)."""
    kind = type(obj)
    if kind in _TORCH_TYPES and obj.is_cpu:
        dt = _TORCH_DTYPES.get(obj.dtype)
        if dt is not None:
            return obj.data_ptr(), dt
    elif _KINDS.get(kind) is _from_numpy:
        return _numpy_address(obj), _numpy_dtype(obj, what)
    info = describe(obj, what)
    return info.ptr, info.dtype


_TORCH_TYPES = set()


def _from_dlpack(obj, what):
    try:
        capsule = obj.__dlpack__()
    except Exception as e:  # the producer's own error, passed on with the argument's name
        raise InvalidArgument("%s: __dlpack__() failed: %s" % (what, e)) from e
    ptr = _PyCapsule_GetPointer(capsule, b"dltensor")
    dl = _DLTensor.from_address(ptr)  # DLManagedTensor starts with its DLTensor
    if dl.device.device_type != _K_DL_CPU:
        raise InvalidArgument("%s: DLPack device type %d; tessera needs CPU memory (1)"
                              % (what, dl.device.device_type))
    if dl.dtype.lanes != 1:
        raise InvalidType("%s: DLPack dtype with %d lanes is not supported" % (what, dl.dtype.lanes))
    dt = dtypes.BY_DLPACK.get((dl.dtype.code, dl.dtype.bits))
    if dt is None:
        raise InvalidType("%s: DLPack dtype (code %d, %d bits) is not supported"
                          % (what, dl.dtype.code, dl.dtype.bits))
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    if dl.strides:
        strides = tuple(dl.strides[i] for i in range(dl.ndim))
    else:
        st = []
        acc = 1
        for d in reversed(shape):
            st.append(acc)
            acc *= d
        strides = tuple(reversed(st))
    # The capsule owns the producer's reference: keeping it keeps the memory alive.
    return TensorInfo((dl.data or 0) + dl.byte_offset, shape, strides, dt, (obj, capsule))


_KINDS = {}  # type -> converter, for the types seen so far (the launch fast path)


def describe(obj, what="tensor"):
    """TensorInfo for a torch CPU tensor, a numpy array or any object with ``__dlpack__``."""
    conv = _KINDS.get(type(obj))
    if conv is not None:
        return conv(obj, what)
    if isinstance(obj, TensorInfo):
        return obj
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        _KINDS[type(obj)] = _from_torch
        _TORCH_TYPES.add(type(obj))
        if _capi.fast is not None:
            _capi.fast.set_torch(torch.Tensor, {getattr(torch, d.torch): d.tsr
                                                for d in dtypes.ALL})
        return _from_torch(obj, what)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.ndarray):
        _KINDS[type(obj)] = _from_numpy
        if _capi.fast is not None:
            _capi.fast.configure(np.ndarray)
        return _from_numpy(obj, what)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj, what)
    if isinstance(obj, TensorInfo):
        return obj
    raise InvalidType("%s: expected a torch tensor, a numpy array or an object with __dlpack__, "
                      "got %s" % (what, type(obj).__name__))
