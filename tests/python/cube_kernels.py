"""Cube and MIX kernels of the tests: PyPTO's matmul TilingKey kernel (tests/st/pypto_pro/frontend/
matmul/test_matmul_tilingkey.py) with run-time shapes and a K loop, and a MIX matmul whose two
vector sections apply relu to their halves of each output tile."""
from __future__ import annotations

from dataclasses import dataclass

import tessera.language as pl
from tessera.runtime.tilingkey import TilingKeyField

K_TILE = 128


@dataclass
class MatmulTiling:
    m: int
    n: int
    k: int


class MatmulTilingKey:
    Dtype = TilingKeyField(bits=1, values=[0, 1])
    TileBlock = TilingKeyField(bits=1, values=[0, 1])


@pl.jit(auto_mutex=True, tiling_key=MatmulTilingKey, timeout=300)
def matmul_tilingkey(a_ptr: pl.Ptr[pl.DT_UINT8], b_ptr: pl.Ptr[pl.DT_UINT8],
                     out_ptr: pl.Ptr[pl.DT_UINT8], tiling: MatmulTiling):
    if Dtype == 0:
        io_dtype = pl.DT_FP16
    else:
        io_dtype = pl.DT_BF16
    if TileBlock == 0:
        mn_tile_size = 64
    else:
        mn_tile_size = 128

    a = pl.make_tensor(a_ptr, [tiling.m, tiling.k], [tiling.k, 1], dtype=io_dtype)
    b = pl.make_tensor(b_ptr, [tiling.k, tiling.n], [tiling.n, 1], dtype=io_dtype)
    out = pl.make_tensor(out_ptr, [tiling.m, tiling.n], [tiling.n, 1], dtype=pl.DT_FP32)

    with pl.section_cube():
        a_mat_db = pl.make_tile_group(
            type=pl.TileType(shape=[mn_tile_size, K_TILE], dtype=io_dtype,
                             target_memory=pl.MemorySpace.Mat),
            addrs=0x00000, mutex_ids=[0, 1])
        b_mat_db = pl.make_tile_group(
            type=pl.TileType(shape=[K_TILE, mn_tile_size], dtype=io_dtype,
                             target_memory=pl.MemorySpace.Mat),
            addrs=0x20000, mutex_ids=[2, 3])
        a_left_db = pl.make_tile_group(
            type=pl.TileType(shape=[mn_tile_size, K_TILE], dtype=io_dtype,
                             target_memory=pl.MemorySpace.Left),
            addrs=0x00000, mutex_ids=[4, 5])
        b_right_db = pl.make_tile_group(
            type=pl.TileType(shape=[K_TILE, mn_tile_size], dtype=io_dtype,
                             target_memory=pl.MemorySpace.Right),
            addrs=0x00000, mutex_ids=[6, 7])
        acc_db = pl.make_tile_group(
            type=pl.TileType(shape=[mn_tile_size, mn_tile_size], dtype=pl.DT_FP32,
                             target_memory=pl.MemorySpace.Acc),
            addrs=0x00000, mutex_ids=[8, 9])

        m_tiles = (tiling.m + mn_tile_size - 1) // mn_tile_size
        n_tiles = (tiling.n + mn_tile_size - 1) // mn_tile_size
        k_tiles = (tiling.k + K_TILE - 1) // K_TILE
        for task in pl.range(pl.get_block_idx(), m_tiles * n_tiles, pl.get_block_num()):
            m_tile_idx = task // n_tiles
            n_tile_idx = task % n_tiles
            acc = acc_db.next()
            for k_tile_idx in pl.range(k_tiles):
                a_mat = a_mat_db.next()
                b_mat = b_mat_db.next()
                a_left = a_left_db.next()
                b_right = b_right_db.next()
                pl.load_tile(a_mat, a, [m_tile_idx, k_tile_idx])
                pl.load_tile(b_mat, b, [k_tile_idx, n_tile_idx])
                pl.move(a_left, a_mat)
                pl.move(b_right, b_mat)
                if k_tile_idx == 0:
                    pl.matmul(acc, a_left, b_right)
                else:
                    pl.matmul_acc(acc, a_left, b_right)
            pl.store_tile(out, acc, [m_tile_idx, n_tile_idx])


TILE_M = 64
TILE_N = 64
HALF_M = (TILE_M + 1) // 2


@pl.jit
def matmul_relu_mix(a_ptr: pl.Ptr[pl.DT_FP16], b_ptr: pl.Ptr[pl.DT_FP16],
                    c_ptr: pl.Ptr[pl.DT_FP32], tiling: MatmulTiling):
    a = pl.make_tensor(a_ptr, [tiling.m, tiling.k])
    b = pl.make_tensor(b_ptr, [tiling.k, tiling.n])
    c = pl.make_tensor(c_ptr, [tiling.m, tiling.n])
    a_mat = pl.make_tile(pl.TileType([TILE_M, K_TILE], pl.DT_FP16, pl.MemorySpace.Mat), addr=0)
    b_mat = pl.make_tile(pl.TileType([K_TILE, TILE_N], pl.DT_FP16, pl.MemorySpace.Mat),
                         addr=0x10000)
    a_left = pl.make_tile(pl.TileType([TILE_M, K_TILE], pl.DT_FP16, pl.MemorySpace.Left), addr=0)
    b_right = pl.make_tile(pl.TileType([K_TILE, TILE_N], pl.DT_FP16, pl.MemorySpace.Right),
                           addr=0)
    acc = pl.make_tile(pl.TileType([TILE_M, TILE_N], pl.DT_FP32, pl.MemorySpace.Acc), addr=0)
    half = pl.make_tile(pl.TileType([HALF_M, TILE_N], pl.DT_FP32), addr=0)

    m_tiles = (tiling.m + TILE_M - 1) // TILE_M
    n_tiles = (tiling.n + TILE_N - 1) // TILE_N
    k_tiles = (tiling.k + K_TILE - 1) // K_TILE
    total = m_tiles * n_tiles
    core_id = pl.get_block_idx() // pl.get_subblock_num()
    core_num = pl.get_block_num()
    per_core = (total + core_num - 1) // core_num
    start = core_id * per_core
    end = pl.min(start + per_core, total)
    sub_id = pl.get_subblock_idx()
    for task in pl.range(start, end, 1):
        m0 = task // n_tiles * TILE_M
        n0 = task % n_tiles * TILE_N
        with pl.section_cube():
            for kt in pl.range(k_tiles):
                pl.load(a_mat, a, [m0, kt * K_TILE])
                pl.load(b_mat, b, [kt * K_TILE, n0])
                pl.move(a_left, a_mat)
                pl.move(b_right, b_mat)
                if kt == 0:
                    pl.matmul(acc, a_left, b_right)
                else:
                    pl.matmul_acc(acc, a_left, b_right)
            pl.store(c, acc, [m0, n0])
        with pl.section_vector():
            row0 = m0 + sub_id * HALF_M
            if row0 < tiling.m:
                pl.load(half, c, [row0, n0])
                pl.relu(half, half)
                pl.store(c, half, [row0, n0])


@pl.jit
def l1_overflow_kernel(a_ptr: pl.Ptr[pl.DT_FP16], c_ptr: pl.Ptr[pl.DT_FP32], n: pl.DT_INT64):
    a = pl.make_tensor(a_ptr, [n, n])
    c = pl.make_tensor(c_ptr, [n, n])
    with pl.section_cube():
        mat = pl.make_tile(pl.TileType([128, 128], pl.DT_FP16, pl.MemorySpace.Mat),
                           addr=0x1FC000)
        left = pl.make_tile(pl.TileType([128, 128], pl.DT_FP16, pl.MemorySpace.Left), addr=0)
        right = pl.make_tile(pl.TileType([128, 128], pl.DT_FP16, pl.MemorySpace.Right), addr=0)
        acc = pl.make_tile(pl.TileType([128, 128], pl.DT_FP32, pl.MemorySpace.Acc), addr=0)
        pl.load(mat, a, [0, 0])
        pl.move(left, mat)
        pl.move(right, mat)
        pl.matmul(acc, left, right)
        pl.store(c, acc, [0, 0])


@pl.jit
def k_mismatch_kernel(a_ptr: pl.Ptr[pl.DT_FP16], b_ptr: pl.Ptr[pl.DT_FP16],
                      c_ptr: pl.Ptr[pl.DT_FP32], n: pl.DT_INT64):
    a = pl.make_tensor(a_ptr, [n, n])
    b = pl.make_tensor(b_ptr, [n - 3, n])
    c = pl.make_tensor(c_ptr, [n, n])
    with pl.section_cube():
        a_mat = pl.make_tile(pl.TileType([32, 32], pl.DT_FP16, pl.MemorySpace.Mat), addr=0)
        b_mat = pl.make_tile(pl.TileType([32, 32], pl.DT_FP16, pl.MemorySpace.Mat), addr=0x1000)
        left = pl.make_tile(pl.TileType([32, 32], pl.DT_FP16, pl.MemorySpace.Left), addr=0)
        right = pl.make_tile(pl.TileType([32, 32], pl.DT_FP16, pl.MemorySpace.Right), addr=0)
        acc = pl.make_tile(pl.TileType([32, 32], pl.DT_FP32, pl.MemorySpace.Acc), addr=0)
        pl.load(a_mat, a, [0, 0])
        pl.load(b_mat, b, [0, 0])
        pl.move(left, a_mat)
        pl.move(right, b_mat)
        pl.matmul(acc, left, right)
        pl.store(c, acc, [0, 0])
