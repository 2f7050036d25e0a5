"""PyPTO Pro's ``pypto_pro.runtime`` names: jit, TilingKey."""
from .tilingkey import TilingKeyField, TilingKeySchema  # noqa: F401


def __getattr__(name):
    if name in ("jit", "kernel"):
        from .. import jit as _jit
        return _jit.jit
    raise AttributeError(name)
