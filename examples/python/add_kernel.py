"""A PyPTO Pro add kernel ported to tessera by changing its imports: a TilingKey selects the tile
width and whether to scale, a TilingData carries the run-time sizes; it runs on numpy arrays and
torch tensors.

Run from the checkout after building: PYTHONPATH=python /usr/bin/python3 examples/python/add_kernel.py
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import tessera
import tessera.language as pl
from tessera.runtime.tilingkey import TilingKeyField


@dataclass
class AddTiling:
    n: int
    scale: float = 1.0


class AddKey:
    UseScale = TilingKeyField(bits=1, values=[0, 1])
    BlockN = TilingKeyField(bits=2, values=[64, 128, 256])


@pl.jit(tiling_key=AddKey)
def add_kernel(x: pl.Ptr[pl.DT_FP32], y: pl.Ptr[pl.DT_FP32], z: pl.Ptr[pl.DT_FP32],
               tiling: AddTiling):
    tx = pl.make_tensor(x, [tiling.n])
    ty = pl.make_tensor(y, [tiling.n])
    tz = pl.make_tensor(z, [tiling.n])
    tt = pl.TileType([1, BlockN], pl.DT_FP32, target_memory=pl.MemorySpace.Vec)
    a = pl.make_tile(tt, addr=0)
    b = pl.make_tile(tt, addr=BlockN * 4)
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    core_num = pl.get_block_num()
    tiles = (tiling.n + BlockN - 1) // BlockN
    per_core = (tiles + core_num - 1) // core_num
    start = core_id * per_core
    end = pl.min(start + per_core, tiles)
    with pl.section_vector():
        for t in pl.range(start, end, 1):
            pl.load(a, tx, [t * BlockN])
            pl.load(b, ty, [t * BlockN])
            pl.add(a, a, b)
            if UseScale == 1:  # compile-time: each key value is its own kernel
                pl.mul(a, a, tiling.scale)
            pl.store(tz, a, [t * BlockN])


def main():
    n = 100_003
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    z = np.empty(n, np.float32)
    add_kernel[None, 8, {"UseScale": 1, "BlockN": 128}](
        x, y, z, AddTiling(n=n, scale=0.5))
    tessera.synchronize()
    err = float(np.max(np.abs(z - (x + y) * 0.5)))
    print("numpy: max |z - (x + y) * 0.5| = %g" % err)
    try:
        import torch
    except ImportError:
        return 0 if err == 0 else 1
    tx, ty, tz = torch.randn(n), torch.randn(n), torch.empty(n)
    stream = tessera.Stream()
    add_kernel[stream, 4, {"UseScale": 0, "BlockN": 256}](tx, ty, tz, AddTiling(n=n))
    stream.synchronize()
    terr = float((tz - (tx + ty)).abs().max())
    print("torch: max |z - (x + y)| = %g" % terr)
    return 0 if err == 0 and terr == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
