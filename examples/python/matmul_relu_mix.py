"""A MIX kernel: the cube section multiplies one output tile (GM -> L1 -> L0A/L0B -> Mmad -> L0C
-> Fixpipe to GM), then the two vector sections of the same AI core apply relu to their halves of
that tile. The sections meet through GM and the cross-core flags the JIT inserts.

Run from the checkout after building:
PYTHONPATH=python /usr/bin/python3 examples/python/matmul_relu_mix.py
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import tessera
import tessera.language as pl

TILE_M, TILE_N, TILE_K = 64, 64, 128
HALF_M = TILE_M // 2


@dataclass
class Shape:
    m: int
    n: int
    k: int


@pl.jit
def matmul_relu(a_ptr: pl.Ptr[pl.DT_FP16], b_ptr: pl.Ptr[pl.DT_FP16], c_ptr: pl.Ptr[pl.DT_FP32],
                s: Shape):
    a = pl.make_tensor(a_ptr, [s.m, s.k])
    b = pl.make_tensor(b_ptr, [s.k, s.n])
    c = pl.make_tensor(c_ptr, [s.m, s.n])
    a_mat = pl.make_tile(pl.TileType([TILE_M, TILE_K], pl.DT_FP16, pl.MemorySpace.Mat), addr=0)
    b_mat = pl.make_tile(pl.TileType([TILE_K, TILE_N], pl.DT_FP16, pl.MemorySpace.Mat),
                         addr=0x10000)
    a_left = pl.make_tile(pl.TileType([TILE_M, TILE_K], pl.DT_FP16, pl.MemorySpace.Left), addr=0)
    b_right = pl.make_tile(pl.TileType([TILE_K, TILE_N], pl.DT_FP16, pl.MemorySpace.Right),
                           addr=0)
    acc = pl.make_tile(pl.TileType([TILE_M, TILE_N], pl.DT_FP32, pl.MemorySpace.Acc), addr=0)
    half = pl.make_tile(pl.TileType([HALF_M, TILE_N], pl.DT_FP32), addr=0)  # UB

    n_tiles = (s.n + TILE_N - 1) // TILE_N
    total = (s.m + TILE_M - 1) // TILE_M * n_tiles
    core_id = pl.get_block_idx() // pl.get_subblock_num()   # the same on the AIC and its AIVs
    per_core = (total + pl.get_block_num() - 1) // pl.get_block_num()
    start = core_id * per_core
    for task in pl.range(start, pl.min(start + per_core, total), 1):
        m0 = task // n_tiles * TILE_M
        n0 = task % n_tiles * TILE_N
        with pl.section_cube():
            for kt in pl.range((s.k + TILE_K - 1) // TILE_K):
                pl.load(a_mat, a, [m0, kt * TILE_K])       # clipped at the tensor's bounds
                pl.load(b_mat, b, [kt * TILE_K, n0])
                pl.move(a_left, a_mat)
                pl.move(b_right, b_mat)
                if kt == 0:
                    pl.matmul(acc, a_left, b_right)
                else:
                    pl.matmul_acc(acc, a_left, b_right)
            pl.store(c, acc, [m0, n0])
        with pl.section_vector():                          # runs after the cube section's store
            row0 = m0 + pl.get_subblock_idx() * HALF_M
            if row0 < s.m:
                pl.load(half, c, [row0, n0])
                pl.relu(half, half)
                pl.store(c, half, [row0, n0])


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    m, n, k = 200, 130, 300
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    matmul_relu[None, 4](a, b, c, Shape(m, n, k))        # 4 AI cores: 4 AICs and 8 AIVs
    tessera.synchronize()
    ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64), 0.0)
    print("max |c - relu(a @ b)| = %.2e" % np.abs(c - ref).max())
    assert np.allclose(c, ref, rtol=1e-5, atol=1e-4)
