"""The package's C extension (tessera/_fast.cc): repeated ops calls and kernel launches take it;
results, re-pointed buffers, checked mode in between and every error stay as on the Python path,
and the package works without the extension."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera
from tessera import _capi
from kernels import AddTiling, add_kernel, tensor_kernel

pytestmark = pytest.mark.skipif(_capi.fast is None, reason="built without Python headers")


def test_ops_repeated_calls_follow_new_buffers():
    rng = np.random.default_rng(5)
    for n in (1, 7, 1000003):
        outs = []
        for _ in range(3):
            a = rng.standard_normal(n).astype(np.float32)
            b = rng.standard_normal(n).astype(np.float32)
            out = np.full(n, np.nan, np.float32)
            tessera.ops.add(a, b, out=out)
            np.testing.assert_array_equal(out, a + b)
            outs.append((a, b, out))
        # The same arrays again, after the executor pointed at others.
        a, b, out = outs[0]
        out[:] = np.nan
        tessera.ops.mul(a, b, out=out)
        np.testing.assert_array_equal(out, a * b)


def test_ops_fast_path_after_checked_mode_uses_the_new_addresses():
    rng = np.random.default_rng(6)
    a = rng.standard_normal(4097).astype(np.float32)
    b = rng.standard_normal(4097).astype(np.float32)
    out = np.empty_like(a)
    tessera.ops.add(a, b, out=out)
    tessera.set_checked_mode(True)
    try:
        out2 = np.empty_like(a)
        tessera.ops.add(a, b, out=out2)  # the same executor, pointed at staged copies
    finally:
        tessera.set_checked_mode(False)
    out[:] = 0
    tessera.ops.add(a, b, out=out)
    np.testing.assert_array_equal(out, a + b)
    np.testing.assert_array_equal(out2, a + b)


def test_ops_torch_and_mixed_kinds():
    x = torch.randn(31, 33)
    y = torch.randn(31, 33)
    for _ in range(2):
        torch.testing.assert_close(tessera.ops.sub(x, y), x - y, rtol=0, atol=0)
        torch.testing.assert_close(tessera.ops.exp(x), torch.exp(x), rtol=2e-6, atol=1e-6)
    xn = x.numpy()
    z = tessera.ops.add(xn, y)  # numpy and torch: a torch result, via the Python path
    assert isinstance(z, torch.Tensor)
    torch.testing.assert_close(z, x + y, rtol=0, atol=0)


def test_ops_errors_are_unchanged():
    a = np.zeros(8, np.float32)
    for _ in range(2):
        with pytest.raises(tessera.InvalidArgument, match=r"output y has shape \[9\]"):
            tessera.ops.add(a, a, out=np.zeros(9, np.float32))
    with pytest.raises(tessera.InvalidType):
        tessera.ops.add(a.astype(np.complex64), a.astype(np.complex64),
                        out=np.zeros(8, np.complex64))


def test_launch_fast_path_results_and_errors():
    key = {"UseScale": 1, "BlockN": 64}
    n = 1000
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    for _ in range(3):
        z = np.zeros(n, np.float32)
        add_kernel[None, 3, key](x, y, z, AddTiling(n=n, scale=3.0))
        tessera.synchronize()
        np.testing.assert_allclose(z, (x + y) * 3.0, rtol=1e-6)
    with pytest.raises(tessera.InvalidType, match="dtype mismatch"):
        add_kernel[None, 1, key](x.astype(np.int32), y, z, AddTiling(n=n))
    with pytest.raises(tessera.InvalidType, match="expected a AddTiling TilingData"):
        add_kernel[None, 1, key](x, y, z, object())
    with pytest.raises(tessera.InvalidArgument, match="block_dim must be a positive int"):
        add_kernel[None, True, key](x, y, z, AddTiling(n=n))
    with pytest.raises(tessera.InvalidType, match="Expected 4 args, got 3"):
        add_kernel[None, 1, key](x, y, z)


def test_launch_tensor_kernel_checks_shape_through_the_python_path():
    y = np.zeros((4, 16), np.float16)
    with pytest.raises(tessera.InvalidArgument, match="must be contiguous"):
        tensor_kernel[None, 1](np.zeros((16, 4), np.float16).T, y, 1)
    with pytest.raises(tessera.InvalidType, match="rank"):
        tensor_kernel[None, 1](np.zeros(16, np.float16), y, 1)
    with pytest.raises(tessera.InvalidType, match="dim 1 must be 16"):
        tensor_kernel[None, 1](np.zeros((4, 8), np.float16), y, 1)


def test_launchers_without_stream_are_reused():
    assert tensor_kernel[None, 2] is tensor_kernel[None, 2]
    assert tensor_kernel[1] is tensor_kernel[1]
    s = tessera.Stream()
    assert tensor_kernel[s, 2] is not tensor_kernel[s, 2]


def test_package_works_without_the_extension():
    code = ("import numpy as np, tessera; from tessera import _capi; assert _capi.fast is None; "
            "a = np.arange(7, dtype=np.float32); o = np.empty_like(a); "
            "tessera.ops.add(a, a, out=o); tessera.ops.add(a, a, out=o); "
            "assert (o == 2 * a).all(); print('ok')")
    env = dict(os.environ, TESSERA_PY_NO_FAST="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
