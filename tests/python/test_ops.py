"""tessera.ops on numpy arrays and torch tensors against float64 / torch references, awkward
sizes, every dtype the ops take; errors carry the runtime's message."""
import numpy as np
import pytest
import torch

import tessera
from tessera import ops

SHAPES = [(1,), (7,), (255,), (4097,), (3, 17)]
RNG = np.random.default_rng(1234)


def rand(shape, dtype=np.float32, low=-2.0, high=2.0):
    return RNG.uniform(low, high, size=shape).astype(dtype)


BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
          "maximum": np.maximum, "minimum": np.minimum}
UNARY = {"abs": (np.abs, -2, 2), "exp": (np.exp, -2, 2), "log": (np.log, 0.1, 3),
         "sqrt": (np.sqrt, 0.1, 3), "rsqrt": (lambda v: 1 / np.sqrt(v), 0.1, 3),
         "relu": (lambda v: np.maximum(v, 0), -2, 2), "sigmoid": (lambda v: 1 / (1 + np.exp(-v)),
                                                                  -4, 4)}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shape", SHAPES)
def test_binary_numpy(name, shape):
    x, y = rand(shape), rand(shape)
    if name == "div":
        y = np.where(np.abs(y) < 0.1, 0.5, y).astype(np.float32)
    ref = BINARY[name](x.astype(np.float64), y)
    np.testing.assert_allclose(getattr(ops, name)(x, y), ref, rtol=2e-7, atol=1e-7)


def test_binary_broadcast_and_out():
    x, y = rand((5, 33)), rand((33,))
    out = np.zeros((5, 33), np.float32)
    r = ops.add(x, y, out=out)
    assert r is out
    np.testing.assert_allclose(out, x.astype(np.float64) + y, rtol=2e-7)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(1,), (17,), (4097,)])
def test_unary_numpy(name, shape):
    fn, lo, hi = UNARY[name]
    x = rand(shape, low=lo, high=hi)
    np.testing.assert_allclose(getattr(ops, name)(x), fn(x.astype(np.float64)), rtol=5e-6,
                               atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_torch_dtypes(dtype):
    x = torch.randn(3, 1001).to(dtype)
    y = torch.randn(3, 1001).to(dtype)
    r = ops.mul(x, y)
    assert isinstance(r, torch.Tensor) and r.dtype == dtype
    assert torch.equal(r, x * y)  # one rounding from fp32, as torch
    torch.testing.assert_close(ops.exp(x).float(), torch.exp(x.float()).to(dtype).float(),
                               rtol=1e-2, atol=1e-3)


def test_scalar_ops():
    x = rand((4097,))
    np.testing.assert_allclose(ops.adds(x, 1.25), x + np.float32(1.25), rtol=1e-7)
    np.testing.assert_allclose(ops.muls(x, -3.0), x * np.float32(-3.0), rtol=1e-7)


def test_cast():
    x = rand((1000,), low=-100, high=100)
    h = ops.cast(x, "float16")
    assert h.dtype == np.float16
    np.testing.assert_array_equal(h, x.astype(np.float16))
    tb = ops.cast(torch.from_numpy(x), torch.bfloat16)
    assert torch.equal(tb, torch.from_numpy(x).to(torch.bfloat16))
    back = ops.cast(h, tessera.language.DT_FP32)
    np.testing.assert_array_equal(back, h.astype(np.float32))


def _rms_ref(x, g, eps):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 ** 2).mean(-1, keepdims=True) + eps) * g


@pytest.mark.parametrize("cols", [1, 31, 4097])
def test_rms_norm_and_add_rms_norm(cols):
    x, g = rand((5, cols)), rand((cols,))
    np.testing.assert_allclose(ops.rms_norm(x, g, epsilon=1e-5), _rms_ref(x, g, 1e-5),
                               rtol=2e-5, atol=2e-6)
    x2 = rand((5, cols))
    y, s = ops.add_rms_norm(x, x2, g, epsilon=1e-5)
    np.testing.assert_allclose(s, x + x2, rtol=1e-7)
    np.testing.assert_allclose(y, _rms_ref(x.astype(np.float64) + x2, g, 1e-5), rtol=2e-5,
                               atol=2e-6)


@pytest.mark.parametrize("cols", [1, 17, 1000])
def test_layer_norm(cols):
    x, g, b = rand((4, cols)), rand((cols,)), rand((cols,))
    x64 = x.astype(np.float64)
    mean = x64.mean(-1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(-1, keepdims=True)
    ref = (x64 - mean) / np.sqrt(var + 1e-5) * g + b
    np.testing.assert_allclose(ops.layer_norm(x, g, b, epsilon=1e-5), ref, rtol=2e-5, atol=5e-5)


def test_softmax_and_swiglu_torch():
    x = torch.randn(6, 257)
    torch.testing.assert_close(ops.softmax(x), torch.softmax(x.double(), -1).float(),
                               rtol=1e-5, atol=1e-6)
    x = torch.randn(4, 2 * 129)
    a, b = x.double().chunk(2, dim=-1)
    torch.testing.assert_close(ops.swiglu(x), (torch.nn.functional.silu(a) * b).float(),
                               rtol=1e-5, atol=1e-6)


def test_bf16_row_op():
    x = torch.randn(3, 300).to(torch.bfloat16)
    g = torch.randn(300).to(torch.bfloat16)
    ref = torch.from_numpy(_rms_ref(x.float().numpy(), g.float().numpy(), 1e-6)).to(torch.bfloat16)
    torch.testing.assert_close(ops.rms_norm(x, g, epsilon=1e-6).float(), ref.float(),
                               rtol=1e-2, atol=1e-2)


def test_stream_launch_is_async_and_keeps_inputs_alive():
    s = tessera.Stream()
    outs = [ops.add(np.full(1000, float(i), np.float32), np.ones(1000, np.float32), stream=s)
            for i in range(10)]
    s.synchronize()
    for i, o in enumerate(outs):
        assert np.all(o == i + 1)


def test_checked_mode_ops_on_foreign_memory():
    tessera.set_checked_mode(True)
    try:
        x, y = rand((4097,)), rand((4097,))
        np.testing.assert_allclose(ops.add(x, y), x.astype(np.float64) + y, rtol=2e-7)
    finally:
        tessera.set_checked_mode(False)


def test_errors_carry_runtime_message():
    with pytest.raises(tessera.TesseraError, match="Softmax.*only the last axis"):
        ops.softmax(rand((4, 8)), dim=0)
    with pytest.raises(tessera.InvalidArgument) as info:
        ops.add(np.zeros(4, np.float32), np.zeros(4, np.float16))
    assert "Add" in str(info.value)
    with pytest.raises(tessera.NotFound):
        ops.call("NoSuchOp", [np.zeros(4, np.float32)], [np.zeros(4, np.float32)])
    with pytest.raises(TypeError):
        ops.add([1, 2], np.zeros(2, np.float32))


def _snake(name):
    out = ""
    for i, ch in enumerate(name):
        if ch.isupper() and i and not name[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out


def test_every_op_of_the_cli_listing_has_a_python_function():
    import json
    import os
    import subprocess
    from tessera import _build
    cli = os.path.join(_build.build_dir(), "tools", "tessera", "tessera")
    if not os.path.exists(cli):
        pytest.skip("the tessera CLI is not built (TESSERA_BUILD_TOOLS=OFF)")
    listing = json.loads(subprocess.run([cli, "ops", "--json"], capture_output=True, text=True,
                                        check=True, timeout=60).stdout)
    names = [o["op"] for o in listing["ops"]]
    assert len(names) >= 21
    missing = [n for n in names if not callable(getattr(ops, _snake(n).replace("swi_glu",
                                                                                "swiglu"), None))]
    assert not missing


def test_device_arrays_in_checked_mode_are_used_in_place():
    x = tessera.empty((4097,), "float32")
    y = tessera.empty((4097,), "float32")
    x[:] = rand((4097,))
    y[:] = rand((4097,))
    tessera.set_checked_mode(True)
    try:
        out = tessera.empty((4097,), "float32")
        ops.mul(x, y, out=out)
        np.testing.assert_allclose(out, x.astype(np.float64) * y, rtol=2e-7)
        t = torch.from_numpy(out)  # a zero-copy view of tessera memory
        assert t.data_ptr() == out.__array_interface__["data"][0]
    finally:
        tessera.set_checked_mode(False)


def test_events_time_stream_work():
    s = tessera.Stream()
    start, end = tessera.Event(), tessera.Event()
    start.record(s)
    x = rand((1 << 16,))
    ops.exp(x, stream=s)
    end.record(s)
    end.synchronize()
    assert start.elapsed_ms(end) >= 0.0
    s2 = tessera.Stream()
    tessera.stream_wait_event(s2, end)
    s2.synchronize()
    s.synchronize()


def test_dsl_functions_refuse_to_run_outside_kernels():
    import tessera.language as pl
    with pytest.raises(RuntimeError, match="must be used inside a PyPTO kernel"):
        pl.add(None, None, None)
    assert list(pl.range(3)) == [0, 1, 2]
    with pl.section_vector():
        pass
