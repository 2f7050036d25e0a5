"""@pl.jit end to end: kernels compiled with g++, launched on numpy arrays, torch tensors and
DLPack objects, in fast and checked mode, on the native and an emulated NPU profile; errors that
name the Python source."""
from __future__ import annotations

import gc
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera
import tessera.language as pl
from kernels import (AddTiling, RowTiling, add_kernel, overrun_kernel, rows_kernel,
                     tensor_kernel, ub_overflow_kernel)

SIZES = [1, 7, 255, 4097]


def run_add(x, y, z, n, key, block_dim, scale=0.5, stream=None):
    add_kernel[stream, block_dim, key](x, y, z, AddTiling(n=n, scale=scale))


@pytest.mark.parametrize("key", [{"UseScale": 0, "BlockN": 64}, {"UseScale": 1, "BlockN": 128},
                                 {"UseScale": 0, "BlockN": 256}])
def test_add_numpy_every_size(key):
    rng = np.random.default_rng(1)
    for n in SIZES:
        for block_dim in (1, 3, 8):
            x = rng.standard_normal(n).astype(np.float32)
            y = rng.standard_normal(n).astype(np.float32)
            z = np.full(n + 16, 7.0, np.float32)  # sentinel tail
            run_add(x, y, z, n, key, block_dim)
            tessera.synchronize()
            ref = (x.astype(np.float64) + y) * (0.5 if key["UseScale"] else 1.0)
            np.testing.assert_allclose(z[:n], ref, rtol=1e-6, atol=1e-6)
            assert np.all(z[n:] == 7.0), "kernel wrote past n"


def test_add_torch_and_dlpack_and_streams():
    key = {"UseScale": 1, "BlockN": 128}
    n = 1000
    x = torch.randn(n)
    y = torch.randn(n)
    z = torch.zeros(n)
    stream = tessera.Stream()
    run_add(x, y, z, n, key, 4, scale=2.0, stream=stream)
    stream.synchronize()
    torch.testing.assert_close(z, (x + y) * 2.0)

    class OnlyDlpack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

    z2 = torch.zeros(n)
    run_add(OnlyDlpack(x), OnlyDlpack(y), OnlyDlpack(z2), n, key, 2, scale=2.0)
    tessera.synchronize()
    torch.testing.assert_close(z2, (x + y) * 2.0)


def test_arguments_stay_alive_until_synchronize():
    key = {"UseScale": 0, "BlockN": 64}
    n = 4097
    outs = []
    stream = tessera.Stream()
    for i in range(20):
        # Inputs are temporaries: only the launch keeps them alive.
        z = np.zeros(n, np.float32)
        run_add(np.full(n, float(i), np.float32), np.ones(n, np.float32), z, n, key, 2,
                stream=stream)
        outs.append(z)
    gc.collect()
    stream.synchronize()
    for i, z in enumerate(outs):
        assert np.all(z == i + 1.0)


@pytest.mark.parametrize("dtype", [pl.DT_FP32, pl.DT_FP16])
def test_runtime_if_and_while_on_tiling_values(dtype):
    rng = np.random.default_rng(5)
    npdt = np.float32 if dtype is pl.DT_FP32 else np.float16
    for rows, cols, pitch in [(1, 1, 1), (37, 45, 50), (16, 64, 64)]:
        src = rng.standard_normal((rows, pitch)).astype(npdt)
        for mode in (0, 1, 2):
            y = np.zeros((rows, cols), npdt)
            rows_kernel[None, 3, {"x": dtype, "y": dtype}](
                src, y, RowTiling(rows=rows, cols=cols, mode=mode, strides=[pitch, 1], alpha=3.0))
            tessera.synchronize()
            s = src[:, :cols]
            ref = [np.abs(s), (s.astype(np.float32) * 3.0).astype(npdt),
                   (1.0 - s.astype(np.float32)).astype(npdt)][mode]
            np.testing.assert_array_equal(y, ref)


def test_strided_non_unit_column_stride():
    src = np.random.default_rng(2).standard_normal((9, 40)).astype(np.float32)
    y = np.zeros((9, 20), np.float32)
    rows_kernel[None, 2, {"T": pl.DT_FP32}](src, y, RowTiling(rows=9, cols=20, mode=1,
                                                              strides=[40, 2], alpha=-1.0))
    tessera.synchronize()
    np.testing.assert_array_equal(y, -src[:, ::2])


def test_tensor_params_fp16_torch_dynamic_dims():
    x = torch.randn(33, 16).half()
    y = torch.zeros(33, 16).half()
    tensor_kernel[None, 4](x, y, 3)
    tessera.synchronize()
    assert torch.equal(y, x - torch.tensor(3.0).half())
    with pytest.raises(TypeError, match="dim 1 must be 16, got 8"):
        tensor_kernel[None, 1](torch.zeros(4, 8).half(), torch.zeros(4, 8).half(), 1)
    with pytest.raises(TypeError, match="dtype mismatch - expected FP16, got FP32"):
        tensor_kernel[None, 1](torch.zeros(4, 16), torch.zeros(4, 16).half(), 1)
    with pytest.raises(ValueError, match="must be contiguous"):
        tensor_kernel[None, 1](torch.zeros(16, 4).half().t(), y, 1)
    with pytest.raises(TypeError, match="expected an int, got 1.5"):
        tensor_kernel[None, 1](x, y, 1.5)
    with pytest.raises(TypeError, match="Expected 3 args, got 2"):
        tensor_kernel[None, 1](x, y)
    with pytest.raises(ValueError, match="block_dim must be a positive int"):
        tensor_kernel[None, 0](x, y, 1)
    with pytest.raises(ValueError, match="block_dim must be a positive int"):
        tensor_kernel[None, True](x, y, 1)
    tensor_kernel[2](x, y, 1)  # k[block_dim] and k(...) forms
    tensor_kernel(x, y, 1)
    tessera.synchronize()
    assert torch.equal(y, x - torch.tensor(1.0).half())


def test_tiling_argument_type_checked():
    with pytest.raises(TypeError, match="expected a AddTiling TilingData instance"):
        add_kernel[None, 1, {"UseScale": 0, "BlockN": 64}](
            np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32),
            RowTiling(rows=1, cols=1, mode=0, strides=[1, 1]))


@pytest.fixture
def checked():
    tessera.set_checked_mode(True)
    yield
    tessera.set_checked_mode(False)


def test_checked_mode_with_foreign_memory(checked):
    key = {"UseScale": 1, "BlockN": 64}
    for n in (7, 4097):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        y = torch.randn(n)
        z = torch.zeros(n)
        run_add(x, y, z, n, key, 3)
        tessera.synchronize()
        torch.testing.assert_close(z, (torch.from_numpy(x) + y) * 0.5)


def test_checked_mode_finding_names_python_line(checked):
    x = np.zeros(100, np.float32)
    stream = tessera.Stream()
    overrun_kernel[stream, 1](x, 100)
    with pytest.raises(tessera.KernelError) as info:
        stream.synchronize()
    msg = str(info.value)
    assert "make_tensor" in msg and "kernels.py" in msg
    assert "tx = pl.make_tensor(x, [n + 64])" in msg
    stream.reset_error()
    stream.close()


def test_ub_capacity_checked_at_run_time_with_python_line():
    stream = tessera.Stream()
    ub_overflow_kernel[stream, 1](np.zeros(8, np.float32))
    with pytest.raises(tessera.KernelError, match="exceeds the UB capacity") as info:
        stream.synchronize()
    assert "a = pl.make_tile(tt, addr=1 << 20)" in str(info.value)
    stream.reset_error()
    stream.close()


@pytest.mark.parametrize("profile", ["native", "ascend910b"])
@pytest.mark.parametrize("mode", ["fast", "checked"])
def test_kernels_on_both_profiles_in_both_modes(profile, mode):
    tessera.set_profile(profile)
    tessera.set_checked_mode(mode == "checked")
    try:
        rng = np.random.default_rng(9)
        n = 4097
        x = rng.standard_normal(n).astype(np.float32)
        y = torch.randn(n)
        for key, block_dim in (({"UseScale": 0, "BlockN": 256}, 48),
                               ({"UseScale": 1, "BlockN": 64}, 7)):
            z = np.zeros(n, np.float32)
            run_add(x, y, z, n, key, block_dim, scale=0.5)
            tessera.synchronize()
            ref = (x.astype(np.float64) + y.double().numpy()) * (0.5 if key["UseScale"] else 1)
            np.testing.assert_allclose(z, ref, rtol=1e-6, atol=1e-6)
        src = rng.standard_normal((37, 50)).astype(np.float32)
        for m in (0, 1, 2):
            out = np.zeros((37, 45), np.float32)
            rows_kernel[None, 5, {"T": pl.DT_FP32}](
                src, out, RowTiling(rows=37, cols=45, mode=m, strides=[50, 1], alpha=3.0))
            tessera.synchronize()
            s = src[:, :45]
            np.testing.assert_array_equal(out, [np.abs(s), s * np.float32(3), 1 - s][m])
    finally:
        tessera.set_checked_mode(False)
        tessera.set_profile("native")


# -- errors at compile time ------------------------------------------------------------------

def test_syntax_error_has_position_and_caret():
    @pl.jit
    def bad_loop(x: pl.Ptr[pl.DT_FP32]):
        for i in range(4):
            pass

    with pytest.raises(tessera.KernelSyntaxError) as info:
        bad_loop.compile()
    msg = str(info.value)
    assert "For loop must use pl.range()" in msg
    assert "test_jit.py:%d:18" % (bad_loop.first_line + 2) in msg
    assert "for i in range(4):" in msg and "^^^^^^^^" in msg


def test_misaligned_tile_and_tiling_value_as_shape():
    @pl.jit
    def misaligned(x: pl.Ptr[pl.DT_FP32]):
        a = pl.make_tile(pl.TileType([1, 64], pl.DT_FP32), addr=16)  # noqa: F841

    with pytest.raises(ValueError, match="Tile address 0x10 is not 32-byte aligned"):
        misaligned.compile()

    @pl.jit
    def dyn_shape(x: pl.Ptr[pl.DT_FP32], t: AddTiling):
        tt = pl.TileType([1, t.n], pl.DT_FP32)  # noqa: F841

    with pytest.raises(tessera.KernelSyntaxError, match="compile-time constants"):
        dyn_shape.compile()


def test_compile_error_mapped_to_python_line():
    @pl.jit
    def bad_dtype(x: pl.Ptr[pl.DT_INT32]):
        a = pl.make_tile(pl.TileType([1, 8], pl.DT_INT32), addr=0)
        pl.exp(a, a)

    with pytest.raises(tessera.CompileError) as info:
        bad_dtype.compile()
    msg = str(info.value)
    assert "test_jit.py:%d" % (bad_dtype.first_line + 3) in msg
    assert "generated source kept at" in msg


# -- the disk cache across processes ---------------------------------------------------------

def test_cache_hits_across_processes(tmp_path):
    env = dict(os.environ, TESSERA_JIT_CACHE_DIR=str(tmp_path))
    code = ("import sys; sys.path.insert(0, %r); import kernels; "
            "o = kernels.tensor_kernel.compile(); print(o.cached, o.path)"
            % os.path.dirname(os.path.abspath(__file__)))
    # Two processes racing on an empty cache: one compiles, the other waits for it; a third
    # process finds the object.
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        outs.append(out.split())
    assert sorted(o[0] for o in outs) == ["False", "True"]
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    outs.append(r.stdout.split())
    assert outs[2][0] == "True"
    assert outs[0][1] == outs[1][1] == outs[2][1] and outs[0][1].startswith(str(tmp_path))
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_key_specialisations_are_distinct_objects():
    a = add_kernel.compile({"UseScale": 0, "BlockN": 64})
    b = add_kernel.compile({"UseScale": 0, "BlockN": 256})
    assert a.path != b.path and "tk0" in os.path.basename(a.path)


def test_example_runs():
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "python", "add_kernel.py")],
                       capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "numpy: max |z - (x + y) * 0.5| = 0" in r.stdout


def test_python_scalar_semantics_in_kernels():
    from kernels import FlowTiling, flow_kernel, flow_reference
    rng = np.random.default_rng(17)
    for _ in range(12):
        t = FlowTiling(n=int(rng.integers(0, 200)), a=int(rng.integers(-40, 40)),
                       b=int(rng.choice([-7, -3, -1, 1, 2, 5])))
        opt = None if rng.random() < 0.5 else np.zeros(8, np.int32)
        x = np.zeros(8, np.int32)
        flow_kernel[None, 1](x, opt, t)
        tessera.synchronize()
        assert np.all(x == flow_reference(opt is None, t)), t
