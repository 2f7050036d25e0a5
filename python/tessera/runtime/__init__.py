"""PyPTO Pro's ``pypto_pro.runtime`` names: jit, TilingKey."""
from .tilingkey import TilingKeyField, TilingKeySchema

__all__ = ["TilingKeyField", "TilingKeySchema", "jit", "kernel"]


def __getattr__(name):
    if name in ("jit", "kernel"):
        from .. import jit as _jit
        return _jit.jit
    raise AttributeError(name)
