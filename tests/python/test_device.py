"""Device arrays: tessera memory viewed by numpy and torch without copies (array interface and
DLPack), released when the last view goes."""
import gc

import numpy as np
import torch

import tessera
from tessera.device import DeviceArray, _dlpack


def test_dlpack_and_array_interface_views_share_memory():
    a = DeviceArray((3, 17), "float32")
    values = np.random.default_rng(4).standard_normal((3, 17)).astype(np.float32)
    np.asarray(a)[:] = values
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.ptr and tuple(t.shape) == (3, 17) and t.dtype == torch.float32
    assert torch.equal(t, torch.from_numpy(values))
    n = np.from_dlpack(a)  # numpy marks DLPack imports read-only
    t[1, 2] = 42.0
    assert n[1, 2] == 42.0
    before = len(_dlpack.live)
    unused = a.__dlpack__()
    del unused
    gc.collect()
    assert len(_dlpack.live) == before  # a capsule nobody consumed releases its reference
    del t, n
    gc.collect()
    assert len(_dlpack.live) == before - 2


def test_device_array_feeds_ops_and_kernels():
    x = DeviceArray((4097,), "float32")
    np.asarray(x)[:] = np.linspace(-3, 3, 4097, dtype=np.float32)
    y = tessera.ops.relu(torch.from_dlpack(x))
    assert torch.equal(y, torch.relu(torch.from_dlpack(x)))
