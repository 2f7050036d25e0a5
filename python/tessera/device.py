"""Streams, events, device memory and the lifetime of launch arguments.

Launches are asynchronous: the objects a launch reads or writes are kept alive here until the
stream they were launched on is synchronised (``Stream.synchronize``, ``tessera.synchronize``).

Checked mode (``TESSERA_CHECK=1`` or ``set_checked_mode(True)``) accepts only tessera device
memory as kernel pointers, so foreign host memory (numpy, torch, DLPack) is staged: each such
argument is copied into a guard-paged device allocation of exactly its size before the launch and
copied back after it, in stream order. Overruns then fault at the allocation's end and extent
checks see the true size, as for tessera's own allocations.
"""
import ctypes
import os

from . import _capi
from ._tensor import describe
from .errors import InvalidArgument

_checked = os.environ.get("TESSERA_CHECK", "") == "1"

# Pending per stream handle value (0 = default stream): objects to keep alive, staging buffers.
_pending = {}
_DRAIN_EVERY = 4096


def checked_mode():
    """True when launches from this package run in checked mode."""
    return _checked


def set_checked_mode(enabled):
    """Turns checked mode on or off for later launches (waits for the device to be idle)."""
    global _checked
    synchronize()
    _capi.check(_capi.tsrSetCheckedMode(1 if enabled else 0), "tsrSetCheckedMode")
    _checked = bool(enabled)


def set_profile(name):
    """Selects the device profile ('native', 'ascend910b', ...) for later launches."""
    synchronize()
    _capi.check(_capi.tsrSetProfile(name.encode()), "tsrSetProfile")


class Stream:
    """An in-order queue of device work (tsrStream). ``Stream.default()`` is the default stream."""

    __slots__ = ("_handle", "_owned", "__weakref__")

    def __init__(self, _handle=None):
        if _handle is None:
            h = ctypes.c_void_p()
            _capi.check(_capi.tsrCreateStream(ctypes.byref(h)), "tsrCreateStream")
            self._handle = h.value
            self._owned = True
        else:
            self._handle = _handle or None
            self._owned = False

    @staticmethod
    def default():
        return _DEFAULT

    @property
    def handle(self):
        return self._handle

    def synchronize(self):
        """Waits for the stream's work; raises KernelError with the sticky error if a kernel
        failed (the error stays until ``reset_error``)."""
        status = _capi.tsrSynchronizeStream(self._handle)
        message = _capi.last_error() if status != _capi.SUCCESS else None
        _release(self._handle or 0)
        if status != _capi.SUCCESS:
            raise _kernel_error(status, "synchronize", message)

    def query(self):
        """True when idle, False while work is pending; raises on a sticky error."""
        status = _capi.tsrQueryStream(self._handle)
        if status == _capi.NOT_READY:
            return False
        if status != _capi.SUCCESS:
            raise _kernel_error(status, "query", None)
        return True

    def reset_error(self):
        _capi.check(_capi.tsrResetStreamError(self._handle), "tsrResetStreamError")

    def close(self):
        if self._owned and self._handle:
            h = self._handle
            self._handle = None
            self._owned = False
            status = _capi.tsrDestroyStream(h)
            _release(h)
            _capi.check(status, "tsrDestroyStream")

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a destructor must not raise; errors were sticky anyway
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Stream(default)" if not self._handle else "Stream(0x%x)" % self._handle


_DEFAULT = Stream(_handle=0)


class Event:
    """A marker on a stream, for ordering and timing (tsrEvent)."""

    __slots__ = ("_handle",)

    def __init__(self):
        h = ctypes.c_void_p()
        _capi.check(_capi.tsrCreateEvent(ctypes.byref(h)), "tsrCreateEvent")
        self._handle = h.value

    def record(self, stream=None):
        _capi.check(_capi.tsrRecordEvent(self._handle, stream_handle(stream)), "tsrRecordEvent")

    def synchronize(self):
        _capi.check(_capi.tsrSynchronizeEvent(self._handle), "tsrSynchronizeEvent")

    def elapsed_ms(self, end):
        ms = ctypes.c_float()
        _capi.check(_capi.tsrEventElapsedTime(ctypes.byref(ms), self._handle, end._handle),
                    "tsrEventElapsedTime")
        return ms.value

    def __del__(self):
        try:
            if getattr(self, "_handle", None):
                _capi.tsrDestroyEvent(self._handle)
                self._handle = None
        except Exception:  # noqa: BLE001 - interpreter shutdown; nothing left to release into
            pass


def stream_wait_event(stream, event):
    _capi.check(_capi.tsrStreamWaitEvent(stream_handle(stream), event._handle),
                "tsrStreamWaitEvent")


def stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, Stream):
        return stream._handle
    raise InvalidArgument("stream: expected None or a tessera.Stream, got %s"
                          % type(stream).__name__)


def synchronize():
    """Waits for all work on every stream (raises on the first sticky kernel error)."""
    status = _capi.tsrSynchronizeDevice()
    message = _capi.last_error() if status != _capi.SUCCESS else None
    for key in list(_pending):
        _release(key)
    if status != _capi.SUCCESS:
        raise _kernel_error(status, "synchronize", message)


def _kernel_error(status, what, message):
    from . import jit as _jit  # the JIT adds the Python line of a failed kernel statement
    err = _capi.error_for(status, what, message)
    return _jit.annotate_kernel_error(err)


def _release(key):
    entry = _pending.pop(key, None)
    if entry is None:
        return
    for ptr in entry[1]:
        _capi.tsrFree(ptr)


def keep_alive(handle, objects, staged=()):
    """Holds `objects` (and frees the `staged` device buffers) until the stream is synchronised."""
    key = handle or 0
    entry = _pending.get(key)
    if entry is None:
        entry = _pending[key] = ([], [])
    entry[0].append(objects)
    if staged:
        entry[1].extend(staged)
    if len(entry[0]) >= _DRAIN_EVERY and not staged:
        # Bound the list for programs that never synchronise: drop it once the stream is idle.
        if _capi.tsrQueryStream(handle) == _capi.SUCCESS:
            entry[0].clear()


def stage_in(info, handle):
    """Checked mode: a device copy of a host tensor's bytes; returns (device_ptr, nbytes)."""
    nbytes = info.span_bytes()
    if nbytes == 0:
        return 0, 0
    dev = ctypes.c_void_p()
    _capi.check(_capi.tsrMalloc(ctypes.byref(dev), nbytes), "tsrMalloc")
    status = _capi.tsrMemcpyAsync(dev.value, nbytes, info.ptr, nbytes, _capi.MEMCPY_HOST_TO_DEVICE,
                                  handle)
    if status != _capi.SUCCESS:
        err = _capi.error_for(status, "staging a host tensor for checked mode")
        _capi.tsrFree(dev.value)
        raise err
    return dev.value, nbytes


def stage_out(info, dev, nbytes, handle):
    if nbytes:
        _capi.check(_capi.tsrMemcpyAsync(info.ptr, nbytes, dev, nbytes,
                                         _capi.MEMCPY_DEVICE_TO_HOST, handle),
                    "copying a staged tensor back")


class DeviceArray:
    """A buffer from tessera's device allocator, viewable without copies by numpy
    (``numpy.asarray``) through ``__array_interface__`` and from there by torch."""

    def __init__(self, shape, dtype):
        from . import dtypes as _dt
        if isinstance(dtype, str):
            dtype = _dt.BY_NUMPY.get(dtype) or _dt.BY_NAME.get(dtype.upper())
        if not isinstance(dtype, _dt.DataType) or dtype.numpy is None:
            raise InvalidArgument("DeviceArray: dtype must be a numpy-representable tessera "
                                  "dtype, got %r" % (dtype,))
        self.shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in self.shape):
            raise InvalidArgument("DeviceArray: negative dimension in shape %s" % (self.shape,))
        self.dtype = dtype
        n = 1
        for d in self.shape:
            n *= d
        self.nbytes = n * dtype.itemsize
        ptr = ctypes.c_void_p()
        _capi.check(_capi.tsrMalloc(ctypes.byref(ptr), max(self.nbytes, 1)), "tsrMalloc")
        self.ptr = ptr.value

    @property
    def __array_interface__(self):
        import numpy as np
        return {"shape": self.shape, "typestr": np.dtype(self.dtype.numpy).str,
                "data": (self.ptr, False), "version": 3}

    def numpy(self):
        import numpy as np
        return np.asarray(self)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    def __dlpack__(self, stream=None):
        """A DLPack capsule viewing this buffer (torch.from_dlpack, numpy.from_dlpack); the
        array stays alive until the consumer's deleter runs."""
        return _dlpack.export(self)

    def __del__(self):
        try:
            if getattr(self, "ptr", None):
                _capi.tsrFree(self.ptr)
                self.ptr = None
        except Exception:  # noqa: BLE001 - interpreter shutdown; the process frees it
            pass


class _DLPackExport:
    """DLPack export through ctypes: a DLManagedTensor per capsule, its deleter releasing the
    DeviceArray. A capsule never consumed is released by its own destructor."""

    def __init__(self):
        from ._tensor import _DLTensor
        self._DLTensor = _DLTensor

        class Managed(ctypes.Structure):
            _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                        ("deleter", ctypes.c_void_p)]

        self.Managed = Managed
        self.live = {}  # address of the DLManagedTensor -> (array, structs kept alive)
        self.deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._delete)
        self.capsule_destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._destroy_capsule)
        # Private prototypes: ctypes.pythonapi's function objects are shared, and their argtypes
        # with them (the capsule destructor receives a raw pointer, not an object).
        api = ctypes.pythonapi
        self.new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                                     ctypes.c_void_p)(("PyCapsule_New", api))
        self.is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
            ("PyCapsule_IsValid", api))
        self.get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
            ("PyCapsule_GetPointer", api))

    def _delete(self, managed):
        self.live.pop(managed, None)

    def _destroy_capsule(self, capsule):
        # Still named "dltensor": no consumer took ownership, so release it here.
        if self.is_valid(capsule, b"dltensor"):
            self._delete(self.get(capsule, b"dltensor"))

    def export(self, array):
        rank = len(array.shape)
        shape = (ctypes.c_int64 * max(rank, 1))(*array.shape)
        m = self.Managed()
        m.dl_tensor.data = array.ptr
        m.dl_tensor.device.device_type = 1
        m.dl_tensor.device.device_id = 0
        m.dl_tensor.ndim = rank
        code, bits = array.dtype.dlpack
        m.dl_tensor.dtype.code = code
        m.dl_tensor.dtype.bits = bits
        m.dl_tensor.dtype.lanes = 1
        m.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.strides = None  # compact row-major
        m.dl_tensor.byte_offset = 0
        m.deleter = ctypes.cast(self.deleter, ctypes.c_void_p).value
        addr = ctypes.addressof(m)
        self.live[addr] = (array, m, shape)
        return self.new(addr, b"dltensor", ctypes.cast(self.capsule_destructor,
                                                       ctypes.c_void_p).value)


_dlpack = _DLPackExport()


def empty(shape, dtype="float32"):
    """A numpy array backed by tessera device memory (usable in checked mode without staging)."""
    import numpy as np
    return np.asarray(DeviceArray(shape, dtype))


def is_device_array(obj_info):
    owner = obj_info.owner
    base = getattr(owner, "base", None)
    while base is not None:
        if isinstance(base, DeviceArray):
            return True
        base = getattr(base, "base", None)
    return False


__all__ = ["Stream", "Event", "synchronize", "set_checked_mode", "checked_mode", "set_profile",
           "stream_wait_event", "DeviceArray", "empty", "describe"]
