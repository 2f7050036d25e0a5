"""ctypes declarations of tessera's C API (include/tessera/tessera_nn.h)."""
import ctypes
import os

from . import _build
from .errors import InvalidArgument, KernelError, NotFound, TesseraError

c_void_p = ctypes.c_void_p
c_size_t = ctypes.c_size_t
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_int = ctypes.c_int

SUCCESS = 0
INVALID_ARGUMENT = 1
NOT_FOUND = 2
KERNEL = 8
NOT_READY = 9

STATUS_NAMES = {
    0: "SUCCESS", 1: "INVALID_ARGUMENT", 2: "NOT_FOUND", 3: "ALREADY_EXISTS", 4: "OUT_OF_MEMORY",
    5: "OUT_OF_RANGE", 6: "FAILED_PRECONDITION", 7: "UNIMPLEMENTED", 8: "KERNEL", 9: "NOT_READY",
    10: "INTERNAL",
}

MEMCPY_HOST_TO_DEVICE = 1
MEMCPY_DEVICE_TO_HOST = 2

ATTR_INT, ATTR_FLOAT, ATTR_BOOL, ATTR_STRING, ATTR_INT_LIST, ATTR_FLOAT_LIST = range(6)


class Attr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", c_int), ("intValue", c_int64),
                ("floatValue", ctypes.c_float), ("boolValue", c_int),
                ("stringValue", ctypes.c_char_p), ("intList", ctypes.POINTER(c_int64)),
                ("floatList", ctypes.POINTER(ctypes.c_float)), ("listCount", c_uint64)]


class RuntimeStats(ctypes.Structure):
    _fields_ = [("cacheHits", c_uint64), ("cacheMisses", c_uint64), ("cacheSize", c_uint64),
                ("tilingCalls", c_uint64), ("packageLookups", c_uint64)]


def _load():
    cfg = _build.config()
    libs = cfg["libraries"]
    handles = {}
    # Dependencies first; RTLD_GLOBAL so JIT'd kernels resolve against this one runtime instance.
    for name in ("core", "tiling", "device", "kernel", "runtime"):
        path = libs[name]
        if not os.path.exists(path):
            raise TesseraError("tessera: library %s is missing; build tessera (cmake --build %s)"
                               % (path, _build.build_dir()))
        handles[name] = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    return handles


_handles = _load()
lib = _handles["runtime"]


def _load_fast():
    """The package's C extension (tessera/_fast.cc) from the build, or None when the build had
    no Python headers; loaded after the libraries, so it binds to the same runtime instance."""
    path = _build.config().get("fast_module")
    if not path or not os.path.exists(path) or os.environ.get("TESSERA_PY_NO_FAST") == "1":
        return None
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.ExtensionFileLoader("tessera._fast", path)
    spec = importlib.util.spec_from_file_location("tessera._fast", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


fast = _load_fast()


def _decl(name, argtypes, restype=c_int):
    fn = getattr(lib, name)
    fn.argtypes = argtypes
    fn.restype = restype
    return fn


tsrGetLastErrorMessage = _decl("tsrGetLastErrorMessage", [], ctypes.c_char_p)
tsrSetProfile = _decl("tsrSetProfile", [ctypes.c_char_p])
tsrSetCheckedMode = _decl("tsrSetCheckedMode", [c_int])
tsrSynchronizeDevice = _decl("tsrSynchronizeDevice", [])
tsrMalloc = _decl("tsrMalloc", [ctypes.POINTER(c_void_p), c_size_t])
tsrFree = _decl("tsrFree", [c_void_p])
tsrMemcpy = _decl("tsrMemcpy", [c_void_p, c_size_t, c_void_p, c_size_t, c_int])
tsrMemcpyAsync = _decl("tsrMemcpyAsync", [c_void_p, c_size_t, c_void_p, c_size_t, c_int, c_void_p])
tsrMemset = _decl("tsrMemset", [c_void_p, c_size_t, c_int, c_size_t])
tsrCreateStream = _decl("tsrCreateStream", [ctypes.POINTER(c_void_p)])
tsrDestroyStream = _decl("tsrDestroyStream", [c_void_p])
tsrSynchronizeStream = _decl("tsrSynchronizeStream", [c_void_p])
tsrQueryStream = _decl("tsrQueryStream", [c_void_p])
tsrResetStreamError = _decl("tsrResetStreamError", [c_void_p])
tsrCreateEvent = _decl("tsrCreateEvent", [ctypes.POINTER(c_void_p)])
tsrDestroyEvent = _decl("tsrDestroyEvent", [c_void_p])
tsrRecordEvent = _decl("tsrRecordEvent", [c_void_p, c_void_p])
tsrStreamWaitEvent = _decl("tsrStreamWaitEvent", [c_void_p, c_void_p])
tsrSynchronizeEvent = _decl("tsrSynchronizeEvent", [c_void_p])
tsrEventElapsedTime = _decl("tsrEventElapsedTime",
                            [ctypes.POINTER(ctypes.c_float), c_void_p, c_void_p])
tsrCreateTensor = _decl("tsrCreateTensor", [ctypes.POINTER(c_int64), c_uint64,
                                            ctypes.POINTER(c_int64), c_int, c_int, c_void_p],
                        c_void_p)
tsrDestroyTensor = _decl("tsrDestroyTensor", [c_void_p])
tsrOpGetWorkspaceSize = _decl("tsrOpGetWorkspaceSize",
                              [ctypes.c_char_p, ctypes.POINTER(c_void_p), c_uint64,
                               ctypes.POINTER(c_void_p), c_uint64, ctypes.POINTER(Attr), c_uint64,
                               ctypes.POINTER(c_uint64), ctypes.POINTER(c_void_p)])
tsrOpExecute = _decl("tsrOpExecute", [c_void_p, c_uint64, c_void_p, c_void_p])
tsrSetExecutorRepeatable = _decl("tsrSetExecutorRepeatable", [c_void_p])
tsrSetExecutorTensorAddress = _decl("tsrSetExecutorTensorAddress", [c_void_p, c_uint64, c_void_p])
tsrDestroyExecutor = _decl("tsrDestroyExecutor", [c_void_p])
tsrCreateWorkspacePool = _decl("tsrCreateWorkspacePool", [ctypes.POINTER(c_void_p)])
tsrWorkspacePoolGet = _decl("tsrWorkspacePoolGet", [c_void_p, c_uint64, ctypes.POINTER(c_void_p)])
tsrDestroyWorkspacePool = _decl("tsrDestroyWorkspacePool", [c_void_p])
tsrGetRuntimeStats = _decl("tsrGetRuntimeStats", [ctypes.POINTER(RuntimeStats)])


def last_error():
    msg = tsrGetLastErrorMessage()
    return msg.decode("utf-8", "replace") if msg else ""


def error_for(status, what, message=None):
    """The exception for a failed call: InvalidArgument, NotFound, KernelError or TesseraError,
    carrying the runtime's message."""
    text = message if message is not None else last_error()
    name = STATUS_NAMES.get(status, str(status))
    full = "%s: %s (%s)" % (what, text, name) if text else "%s failed (%s)" % (what, name)
    if status == INVALID_ARGUMENT:
        return InvalidArgument(full, code=status)
    if status == NOT_FOUND:
        return NotFound(full, code=status)
    if status == KERNEL:
        return KernelError(full, code=status)
    return TesseraError(full, code=status)


def check(status, what):
    if status != SUCCESS:
        raise error_for(status, what)
