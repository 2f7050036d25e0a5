"""Kernels shared by the tests (defined in a file: the JIT reads kernel source from files)."""
from __future__ import annotations

from dataclasses import dataclass

import tessera.language as pl
from tessera.runtime.tilingkey import TilingKeyField

TILE = 64


@dataclass
class AddTiling:
    n: int
    scale: float = 1.0


class AddKey:
    UseScale = TilingKeyField(bits=1, values=[0, 1])
    BlockN = TilingKeyField(bits=2, values=[64, 128, 256])

    def is_valid(self, key):
        use_scale, block_n = key
        return use_scale == 0 or block_n != 256


@pl.jit(tiling_key=AddKey)
def add_kernel(x: pl.Ptr[pl.DT_FP32], y: pl.Ptr[pl.DT_FP32], z: pl.Ptr[pl.DT_FP32],
               tiling: AddTiling):
    tx = pl.make_tensor(x, [tiling.n])
    ty = pl.make_tensor(y, [tiling.n])
    tz = pl.make_tensor(z, [tiling.n])
    tt = pl.TileType([1, BlockN], pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a = pl.make_tile(tt, addr=0)
    b = pl.make_tile(tt, addr=BlockN * 4)
    core_num = pl.get_block_num()
    tiles = (tiling.n + BlockN - 1) // BlockN
    per_core = (tiles + core_num - 1) // core_num
    start = pl.get_block_idx() // pl.get_subblock_num() * per_core
    end = pl.min(start + per_core, tiles)
    with pl.section_vector():
        for t in pl.range(start, end, 1):
            pl.load(a, tx, [t * BlockN])
            pl.load(b, ty, [t * BlockN])
            pl.add(a, a, b)
            if UseScale == 1:
                pl.mul(a, a, tiling.scale)
            pl.store(tz, a, [t * BlockN])


@dataclass
class RowTiling:
    rows: int
    cols: int
    mode: int
    strides: int[2]
    alpha: float = 2.0


@pl.jit(datatype={"x": "T", "y": "T"})
def rows_kernel(x: pl.Ptr[T], y: pl.Ptr[T], tiling: RowTiling):  # noqa: F821 - T is a type var
    """A 2-D kernel with a runtime if/while on tiling values and a strided source."""
    tx = pl.make_tensor(x, [tiling.rows, tiling.cols], [tiling.strides[0], tiling.strides[1]])
    ty = pl.make_tensor(y, [tiling.rows, tiling.cols])
    if T == pl.DT_FP32:
        tt = pl.TileType([8, 16], T)
    else:
        tt = pl.TileType([8, 32], T)
    a = pl.make_tile(tt, addr=0)
    row_tiles = (tiling.rows + tt.shape[0] - 1) // tt.shape[0]
    col_tiles = (tiling.cols + tt.shape[1] - 1) // tt.shape[1]
    task = pl.get_block_idx()
    while task < row_tiles * col_tiles:
        r = task // col_tiles
        c = task % col_tiles
        pl.load(a, tx, [r * tt.shape[0], c * tt.shape[1]])
        if tiling.mode == 0:
            pl.abs(a, a)
        elif tiling.mode == 1:
            pl.mul(a, a, tiling.alpha)
        else:
            pl.neg(a, a)
            pl.add(a, a, 1.0)
        pl.store(ty, a, [r * tt.shape[0], c * tt.shape[1]])
        task += pl.get_block_num()


@pl.jit
def tensor_kernel(x: pl.Tensor[[pl.DYNAMIC, 16], pl.DT_FP16], y: pl.Tensor[[..., 16], pl.DT_FP16],
                  k: pl.DT_INT64):
    tt = pl.TileType([1, 16], pl.DT_FP16)
    a = pl.make_tile(tt, addr=0)
    b = pl.make_tile(tt, addr=64)
    for r in pl.range(pl.get_block_idx(), x.shape[0], pl.get_block_num()):
        pl.load(a, x, [r, 0])
        pl.fill(b, k)
        pl.sub(a, a, b)
        pl.store(y, a, [r, 0])


@pl.jit
def overrun_kernel(x: pl.Ptr[pl.DT_FP32], n: pl.DT_INT64):
    """Reads one tile past the end of x (a bug checked mode must name)."""
    tx = pl.make_tensor(x, [n + 64])
    tt = pl.TileType([1, 64], pl.DT_FP32)
    a = pl.make_tile(tt, addr=0)
    pl.load(a, tx, [0])
    pl.store(tx, a, [64])


@pl.jit
def ub_overflow_kernel(x: pl.Ptr[pl.DT_FP32]):
    tt = pl.TileType([1024, 1024], pl.DT_FP32)
    a = pl.make_tile(tt, addr=1 << 20)
    tx = pl.make_tensor(x, [8])
    pl.load(a, tx, [0])


@dataclass
class FlowTiling:
    n: int
    a: int
    b: int


def flow_reference(opt_is_none, t):
    """The Python meaning of flow_kernel's scalar code, for the test."""
    v = 1
    if t.n > 3:
        v = 2
    p, q = t.a // t.b, t.a % t.b
    p, q = q, p
    w = 0
    k = 0
    while True:
        k += 1
        if k > 5:
            break
        if k % 2 == 0:
            continue
        w += k
    extra = 100 if opt_is_none else 200
    first = v * 1000000 + (p + 50) * 10000 + (q + 50) * 100 + w + extra - 100
    return first if t.n > 100 else -1


@pl.jit
def flow_kernel(x: pl.Ptr[pl.DT_INT32], opt: pl.Ptr[pl.DT_INT32], t: FlowTiling):
    """Python scalar semantics in a kernel: floor division and modulo of negatives, tuple swap,
    while/break/continue, a constant becoming a variable under a run-time if, `is None` on a
    pointer, an early return."""
    tx = pl.make_tensor(x, [8])
    tt = pl.TileType([1, 8], pl.DT_INT32)
    a = pl.make_tile(tt, addr=0)
    v = 1
    if t.n > 3:
        v = 2
    p, q = t.a // t.b, t.a % t.b
    p, q = q, p
    w = 0
    k = 0
    while True:
        k += 1
        if k > 5:
            break
        if k % 2 == 0:
            continue
        w += k
    extra = 100 if opt is None else 200
    pl.fill(a, v * 1000000 + (p + 50) * 10000 + (q + 50) * 100 + w + extra - 100)
    pl.store(tx, a, [0])
    if t.n > 100:
        return
    pl.fill(a, -1)
    pl.store(tx, a, [0])
