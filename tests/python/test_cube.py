"""Cube tiles and MIX kernels from Python: PyPTO's matmul TilingKey test (four key instances)
against a double-precision matmul of the same inputs, on awkward sizes, in fast and checked mode,
on the native and the emulated ascend910b profile; a MIX kernel (matmul, then relu on the two
halves of each tile by the two vector cores); the errors of the cube subset."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera
import tessera.language as pl
from cube_kernels import MatmulTiling, matmul_relu_mix, matmul_tilingkey

# (m, n, k): tails in every dimension, a K loop of several tiles, single rows and columns.
SHAPES = [(1, 1, 1), (7, 31, 5), (65, 130, 200), (129, 17, 300)]


@pytest.fixture(params=[("native", False), ("native", True), ("ascend910b", False),
                        ("ascend910b", True)], ids=lambda p: "%s-%s" % (p[0], "checked"
                                                                       if p[1] else "fast"))
def device_mode(request):
    profile, checked = request.param
    tessera.set_profile(profile)
    tessera.set_checked_mode(checked)
    yield request.param
    tessera.set_checked_mode(False)
    tessera.set_profile("native")


def _inputs(rng, m, n, k, torch_dtype):
    a = torch.from_numpy(rng.standard_normal((m, k)).astype(np.float32)).to(torch_dtype)
    b = torch.from_numpy(rng.standard_normal((k, n)).astype(np.float32)).to(torch_dtype)
    return a, b


def _reference(a, b):
    return a.double().numpy() @ b.double().numpy()


def _check(out, ref, k):
    # fp16/bf16 products are exact in fp32; the fp32 sums of k terms differ from the double sum
    # by at most about k ulps of the running magnitude.
    tol = 4e-7 * k * (np.abs(ref) + 1.0) + 1e-6
    err = np.abs(out.astype(np.float64) - ref)
    assert np.all(err <= tol), "max error %g at %s" % (err.max(), np.unravel_index(err.argmax(),
                                                                                   err.shape))


@pytest.mark.parametrize("dtype_key,tile_key,torch_dtype", [
    (0, 0, torch.float16), (0, 1, torch.float16), (1, 0, torch.bfloat16), (1, 1, torch.bfloat16)])
def test_matmul_tilingkey(device_mode, dtype_key, tile_key, torch_dtype):
    rng = np.random.default_rng(42 + 2 * dtype_key + tile_key)
    for m, n, k in SHAPES:
        for block_dim in (1, 3):
            a, b = _inputs(rng, m, n, k, torch_dtype)
            out = torch.full((m + 1, n), 7.0)  # a sentinel row after the result
            matmul_tilingkey[None, block_dim, {"Dtype": dtype_key, "TileBlock": tile_key}](
                a, b, out, MatmulTiling(m=m, n=n, k=k))
            tessera.synchronize()
            _check(out[:m].numpy(), _reference(a, b), k)
            assert torch.all(out[m:] == 7.0), "kernel wrote past the output"


def test_matmul_tilingkey_numpy_fp16():
    rng = np.random.default_rng(3)
    m, n, k = 100, 70, 129
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    out = np.zeros((m, n), np.float32)
    matmul_tilingkey[None, 2, {"Dtype": 0, "TileBlock": 1}](a, b, out, MatmulTiling(m, n, k))
    tessera.synchronize()
    _check(out, a.astype(np.float64) @ b.astype(np.float64), k)


def test_mix_matmul_relu_halves(device_mode):
    rng = np.random.default_rng(7)
    for m, n, k in [(1, 1, 1), (7, 31, 5), (64, 64, 128), (97, 130, 200), (200, 65, 33)]:
        for groups in (1, 2, 5):
            a, b = _inputs(rng, m, n, k, torch.float16)
            c = torch.full((m + 1, n), 7.0)
            matmul_relu_mix[None, groups](a, b, c, MatmulTiling(m=m, n=n, k=k))
            tessera.synchronize()
            _check(c[:m].numpy(), np.maximum(_reference(a, b), 0.0), k)
            assert torch.all(c[m:] == 7.0)


def test_cube_tile_type_rules():
    with pytest.raises(tessera.InvalidType, match="Mat tiles hold"):
        pl.TileType([16, 16], pl.DT_FP32, target_memory=pl.MemorySpace.Mat)
    with pytest.raises(tessera.InvalidVal, match="rows in whole fractals of 16"):
        pl.TileType([8, 16], pl.DT_FP16, target_memory=pl.MemorySpace.Left)
    with pytest.raises(tessera.InvalidVal, match="columns in whole fractals of 16"):
        pl.TileType([16, 8], pl.DT_FP32, target_memory=pl.MemorySpace.Acc)
    with pytest.raises(tessera.InvalidVal, match="Scaling is not supported"):
        pl.TileType([16, 16], pl.DT_FP16, target_memory=pl.MemorySpace.Scaling)


def _source_error(tmp_path, body, name):
    src = tmp_path / ("bad_%s.py" % name)
    src.write_text("import tessera.language as pl\n\n"
                   "@pl.jit\n"
                   "def %s(a: pl.Ptr[pl.DT_FP16], c: pl.Ptr[pl.DT_FP32], n: pl.DT_INT64):\n"
                   "    ta = pl.make_tensor(a, [n, n])\n"
                   "    tc = pl.make_tensor(c, [n, n])\n"
                   "    mat = pl.make_tile(pl.TileType([16, 16], pl.DT_FP16, pl.MemorySpace.Mat),"
                   " addr=0)\n"
                   "    left = pl.make_tile(pl.TileType([16, 16], pl.DT_FP16, "
                   "pl.MemorySpace.Left), addr=0)\n"
                   "    right = pl.make_tile(pl.TileType([16, 16], pl.DT_FP16, "
                   "pl.MemorySpace.Right), addr=0)\n"
                   "    acc = pl.make_tile(pl.TileType([16, 16], pl.DT_FP32, pl.MemorySpace.Acc),"
                   " addr=0)\n"
                   "    vec = pl.make_tile(pl.TileType([16, 16], pl.DT_FP32), addr=0)\n"
                   % name + body)
    import importlib.util
    spec = importlib.util.spec_from_file_location("bad_" + name, src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(tessera.KernelSyntaxError) as e:
        getattr(mod, name).generate()
    return str(e.value), src


@pytest.mark.parametrize("body,message,line", [
    ("    with pl.section_cube():\n        pl.load(left, ta, [0, 0])\n",
     "Left tiles are filled by pl.move", 13),
    ("    with pl.section_cube():\n        pl.move(mat, left)\n",
     "pl.move moves a Mat tile into a Left or Right tile", 13),
    ("    with pl.section_cube():\n        pl.matmul(acc, right, left)\n",
     "lhs must be a Left tile", 13),
    ("    with pl.section_cube():\n        pl.load(mat, ta, [0, 0])\n"
     "    with pl.section_vector():\n        pl.matmul(acc, left, right)\n",
     "runs on the cube core: in a MIX kernel put it inside pl.section_cube()", 15),
    ("    with pl.section_cube():\n        pl.relu(vec, vec)\n",
     "runs on the vector core, but this kernel has only pl.section_cube()", 13),
    ("    pl.load(mat, ta, [0, 0])\n    pl.relu(vec, vec)\n",
     "runs on the vector core, but this kernel already uses the cube core", 13),
    ("    for i in pl.range(n):\n        with pl.section_cube():\n            break\n"
     "    with pl.section_vector():\n        pl.relu(vec, vec)\n",
     "would leave a section of a MIX kernel", 14),
])
def test_cube_errors_name_the_python_line(tmp_path, body, message, line):
    text, src = _source_error(tmp_path, body, "k%d" % abs(hash(message)))
    assert message in text
    assert "%s:%d:" % (src, line) in text


def test_mix_example_runs():
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    path = os.path.join(root, "examples", "python", "matmul_relu_mix.py")
    r = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "max |c - relu(a @ b)|" in r.stdout


def test_cube_run_time_errors_name_the_python_line():
    import cube_kernels
    a = np.zeros((128, 128), np.float16)
    c = np.zeros((128, 128), np.float32)
    cube_kernels.l1_overflow_kernel[None, 1](a, c, 128)
    with pytest.raises(tessera.KernelError) as e:
        tessera.synchronize()
    text = str(e.value)
    assert "make_tile: tile at L1 address 2080768 of 32768 bytes exceeds the L1 capacity" in text
    assert "cube_kernels.py:" in text and "mat = pl.make_tile(" in text
    tessera.Stream.default().reset_error()

    # The left tile holds K = n valid columns, the right one n - 3 rows.
    n = 20
    cube_kernels.k_mismatch_kernel[None, 1](np.zeros((n, n), np.float16),
                                           np.zeros((n - 3, n), np.float16),
                                           np.zeros((n, n), np.float32), n)
    with pytest.raises(tessera.KernelError) as e:
        tessera.synchronize()
    text = str(e.value)
    assert "matmul: the left tile holds 20 valid columns (K) but the right tile 17 rows" in text
    assert "pl.matmul(acc, left, right)" in text
    tessera.Stream.default().reset_error()
