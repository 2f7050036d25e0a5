"""tessera from Python: PyPTO-style kernels (``import tessera.language as pl``), TilingKey and
TilingData, streams and events, and every operator of the operator packages on numpy arrays and
torch CPU tensors (``tessera.ops``). Everything goes through tessera's C API with ctypes."""
from . import _build
from .device import (DeviceArray, Event, Stream, checked_mode, empty, set_checked_mode,  # noqa
                     set_profile, stream_wait_event, synchronize)
from .errors import (CompileError, InvalidArgument, InvalidType, InvalidVal,  # noqa: F401
                     KernelError, KernelSyntaxError, NotFound, TesseraError)

from . import language, ops  # noqa: E402,F401

__version__ = _build.config()["version"]

__all__ = ["CompileError", "DeviceArray", "Event", "InvalidArgument", "InvalidType", "InvalidVal",
           "KernelError", "KernelSyntaxError", "NotFound", "Stream", "TesseraError",
           "checked_mode", "empty", "language", "ops", "set_checked_mode", "set_profile",
           "stream_wait_event", "synchronize"]
