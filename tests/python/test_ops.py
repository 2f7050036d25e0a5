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
