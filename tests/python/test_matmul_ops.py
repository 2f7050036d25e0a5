"""The matmul operators from Python against float64 numpy references (CATLASS tolerance)."""
import numpy as np
import pytest

from tessera import ops


def _close(out, ref, k):
    rtol = 1.0 / 256 if k < 2048 else 1.0 / 128
    assert np.all(np.abs(out - ref) <= rtol * np.maximum(1.0, np.abs(ref)))


@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (15, 17, 16), (17, 255, 31), (64, 7, 1000)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True)])
def test_matmul_float32(m, n, k, ta, tb):
    rng = np.random.default_rng(m * 1000 + n * 10 + k)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    x1 = np.ascontiguousarray(a.T) if ta else a
    x2 = np.ascontiguousarray(b.T) if tb else b
    out = ops.matmul(x1, x2, transpose_x1=ta, transpose_x2=tb)
    assert out.shape == (m, n) and out.dtype == np.float32
    _close(out, a.astype(np.float64) @ b.astype(np.float64), k)


def test_matmul_int8_is_exact_and_bias_is_added():
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (31, 100), dtype=np.int8)
    b = rng.integers(-128, 128, (100, 17), dtype=np.int8)
    out = ops.matmul(a, b)
    assert out.dtype == np.int32
    assert np.array_equal(out, a.astype(np.int64) @ b.astype(np.int64))
    x1 = rng.standard_normal((9, 33)).astype(np.float32)
    x2 = rng.standard_normal((33, 20)).astype(np.float32)
    bias = rng.standard_normal(20).astype(np.float32)
    _close(ops.matmul(x1, x2, bias=bias), x1.astype(np.float64) @ x2 + bias, 33)


def test_batch_matmul_broadcasts_and_matmul_act_applies_relu():
    rng = np.random.default_rng(11)
    x1 = rng.standard_normal((3, 1, 7, 16)).astype(np.float32)
    x2 = rng.standard_normal((2, 16, 5)).astype(np.float32)
    out = ops.batch_matmul(x1, x2)
    assert out.shape == (3, 2, 7, 5)
    _close(out, np.matmul(x1.astype(np.float64), x2.astype(np.float64)), 16)
    y = ops.matmul_act(x1[0, 0], x2[0], act="relu")
    _close(y, np.maximum(x1[0, 0].astype(np.float64) @ x2[0], 0.0), 16)


def test_matmul_shape_mismatch_raises_with_the_runtime_message():
    with pytest.raises(Exception) as e:
        ops.matmul(np.zeros((4, 5), np.float32), np.zeros((6, 3), np.float32))
    assert "MatMul" in str(e.value) or "K" in str(e.value)
