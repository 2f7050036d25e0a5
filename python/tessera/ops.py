"""Every operator of tessera's operator packages, callable on numpy arrays and torch CPU tensors.

Each call goes through the two-stage C API by op name (tsrOpGetWorkspaceSize, then tsrOpExecute
on a stream) with the runtime's plan cache. A repeated synchronous call takes one call into the
package's C extension (tessera/_fast.cc: read the tensors, find the executor, run, synchronise);
the first call of a signature, asynchronous calls and checked mode take the Python path.
Failures raise InvalidArgument / NotFound / TesseraError carrying the runtime's message. ``out=None`` allocates the result (a torch tensor
when any input is one, else a numpy array; bf16 needs torch). With ``stream=None`` the call runs
on the default stream and returns when the result is ready; with a ``tessera.Stream`` it is
asynchronous and the tensors stay alive until that stream is synchronised.
"""
import collections
import ctypes
import sys

from . import _capi, device, dtypes
from ._tensor import describe
from .errors import InvalidArgument, InvalidType

_EXEC_CACHE_SIZE = 256
_executors = collections.OrderedDict()   # call signature -> (executor, workspace size)
_pools = {}                               # stream handle -> tsrWorkspacePool


def _pool(handle):
    pool = _pools.get(handle or 0)
    if pool is None:
        p = ctypes.c_void_p()
        _capi.check(_capi.tsrCreateWorkspacePool(ctypes.byref(p)), "tsrCreateWorkspacePool")
        pool = _pools[handle or 0] = p.value
    return pool


def _attr(name, value):
    a = _capi.Attr()
    a.name = name.encode()
    keep = None
    if isinstance(value, bool):
        a.type, a.boolValue = _capi.ATTR_BOOL, int(value)
    elif isinstance(value, int):
        a.type, a.intValue = _capi.ATTR_INT, value
    elif isinstance(value, float):
        a.type, a.floatValue = _capi.ATTR_FLOAT, value
    elif isinstance(value, str):
        keep = value.encode()
        a.type, a.stringValue = _capi.ATTR_STRING, keep
    elif isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool)
                                                  for v in value):
        keep = (ctypes.c_int64 * len(value))(*value)
        a.type, a.intList, a.listCount = _capi.ATTR_INT_LIST, keep, len(value)
    elif isinstance(value, (list, tuple)):
        keep = (ctypes.c_float * len(value))(*[float(v) for v in value])
        a.type, a.floatList, a.listCount = _capi.ATTR_FLOAT_LIST, keep, len(value)
    else:
        raise InvalidType("attribute '%s': unsupported value %r" % (name, value))
    return a, keep


def _make_tensor(info):
    rank = len(info.shape)
    shape = (ctypes.c_int64 * max(rank, 1))(*info.shape)
    strides = (ctypes.c_int64 * max(rank, 1))(*info.strides)
    if info.dtype.tsr is None:
        raise InvalidType("dtype %s is not supported by the operator API" % info.dtype.name)
    t = _capi.tsrCreateTensor(shape, rank, strides, info.dtype.tsr, 2, info.ptr or None)
    if not t:
        raise _capi.error_for(_capi.INVALID_ARGUMENT, "tsrCreateTensor")
    return t


def _attr_key(attrs):
    return tuple(sorted(attrs.items())) if attrs else None


def call(op_type, inputs, outputs, attrs=None, stream=None):
    """Runs operator `op_type` of the operator packages: `inputs` and `outputs` are tensors
    (an input may be None when optional), `attrs` a dict of attribute values."""
    fast = _capi.fast
    if fast is not None and stream is None and not device._checked:
        st = fast.op_run(op_type, _attr_key(attrs), (*inputs, *outputs), len(inputs))
        if st is not None:
            if st:
                _raise_failed(st, op_type)
            return
    handle = None if stream is None else device.stream_handle(stream)
    infos = []
    shapes = [op_type, handle or 0, _attr_key(attrs) or ()]
    for i, x in enumerate(inputs):
        if x is None:
            infos.append(None)
            shapes.append(None)
        else:
            info = describe(x, "%s input %d" % (op_type, i))
            infos.append(info)
            shapes.append((info.shape, info.strides, info.dtype))
    shapes.append(len(inputs))
    for i, y in enumerate(outputs):
        info = describe(y, "%s output %d" % (op_type, i))
        infos.append(info)
        shapes.append((info.shape, info.strides, info.dtype))
    sig = tuple(shapes)
    present = [i for i in infos if i is not None]
    if device._checked:
        return _call_staged(op_type, infos, len(inputs), present, sig, attrs or {}, handle)
    ptrs = [i.ptr for i in present]
    cached = _executors.get(sig)
    if cached is not None:
        _executors.move_to_end(sig)
        executor, ws_size = cached
        # Every address: the C extension and checked mode re-point the same executor.
        for idx, ptr in enumerate(ptrs):
            _capi.check(_capi.tsrSetExecutorTensorAddress(executor, idx, ptr or None), op_type)
    else:
        executor, ws_size = _cache_new(sig, op_type, infos, len(inputs), ptrs, attrs or {})
    if fast is not None and handle is None:
        fast.op_remember(op_type, _attr_key(attrs), (*inputs, *outputs), len(inputs), executor,
                         ws_size, _pool(None) if ws_size else None)
    _execute(op_type, executor, ws_size, handle, present, ())


def _raise_failed(status, op_type):
    err = _capi.error_for(status, op_type)
    _capi.tsrResetStreamError(None)
    raise err


def _cache_new(sig, op_type, infos, n_in, ptrs, attrs):
    executor, ws_size = _prepare(op_type, infos[:n_in], infos[n_in:], ptrs, attrs)
    if len(_executors) >= _EXEC_CACHE_SIZE:
        _, (old, _) = _executors.popitem(last=False)
        device.synchronize()  # the evicted executor may still be queued
        if _capi.fast is not None:
            _capi.fast.op_forget(old)
        _capi.tsrDestroyExecutor(old)
    _executors[sig] = (executor, ws_size)
    return executor, ws_size


def _execute(op_type, executor, ws_size, handle, present, staged):
    ws = None
    if ws_size:
        p = ctypes.c_void_p()
        _capi.check(_capi.tsrWorkspacePoolGet(_pool(handle), ws_size, ctypes.byref(p)),
                    "%s workspace" % op_type)
        ws = p.value
    _capi.check(_capi.tsrOpExecute(ws, ws_size, executor, handle), op_type)
    if handle is None:
        status = _capi.tsrSynchronizeStream(None)
        if status != _capi.SUCCESS:
            err = _capi.error_for(status, op_type)
            _capi.tsrResetStreamError(None)
            raise err
    else:
        device.keep_alive(handle, tuple(i.owner for i in present), ())


def _call_staged(op_type, infos, n_in, present, sig, attrs, handle):
    """Checked mode: host tensors go through guard-paged device copies (see tessera.device)."""
    staged = []
    copies_back = []
    ptrs = []
    try:
        for info in present:
            ptr = info.ptr
            if not device.is_device_array(info):
                dev, nbytes = device.stage_in(info, handle)
                staged.append(dev)
                copies_back.append((info, dev, nbytes))
                ptr = dev
            ptrs.append(ptr)
        cached = _executors.get(sig)
        if cached is not None:
            executor, ws_size = cached
            for idx, ptr in enumerate(ptrs):
                _capi.check(_capi.tsrSetExecutorTensorAddress(executor, idx, ptr or None),
                            op_type)
        else:
            executor, ws_size = _cache_new(sig, op_type, infos, n_in, ptrs, attrs)
        ws = None
        if ws_size:
            p = ctypes.c_void_p()
            _capi.check(_capi.tsrWorkspacePoolGet(_pool(handle), ws_size, ctypes.byref(p)),
                        "%s workspace" % op_type)
            ws = p.value
        _capi.check(_capi.tsrOpExecute(ws, ws_size, executor, handle), op_type)
    except BaseException:
        for dev in staged:
            _capi.tsrFree(dev)
        raise
    for info, dev, nbytes in copies_back:
        device.stage_out(info, dev, nbytes, handle)
    if handle is None:
        status = _capi.tsrSynchronizeStream(None)
        for dev in staged:
            _capi.tsrFree(dev)
        if status != _capi.SUCCESS:
            err = _capi.error_for(status, op_type)
            _capi.tsrResetStreamError(None)
            raise err
    else:
        device.keep_alive(handle, tuple(i.owner for i in present), staged)


def _prepare(op_type, ins, outs, ptrs, attrs):
    """Stage 1 with a repeatable executor, cached for later calls of the same signature."""
    handles = []
    it = iter(ptrs)
    try:
        in_handles = []
        for info in ins:
            if info is None:
                in_handles.append(None)
                continue
            info_ptr = next(it)
            handles.append(_make_tensor(_with_ptr(info, info_ptr)))
            in_handles.append(handles[-1])
        out_handles = []
        for info in outs:
            handles.append(_make_tensor(_with_ptr(info, next(it))))
            out_handles.append(handles[-1])
        attr_objs = []
        keep = []
        for name, value in attrs.items():
            a, k = _attr(name, value)
            attr_objs.append(a)
            keep.append(k)
        in_arr = (ctypes.c_void_p * max(len(in_handles), 1))(*in_handles)
        out_arr = (ctypes.c_void_p * max(len(out_handles), 1))(*out_handles)
        attr_arr = (_capi.Attr * max(len(attr_objs), 1))(*attr_objs)
        ws = ctypes.c_uint64()
        ex = ctypes.c_void_p()
        _capi.check(_capi.tsrOpGetWorkspaceSize(op_type.encode(), in_arr, len(in_handles),
                                                out_arr, len(out_handles), attr_arr,
                                                len(attr_objs), ctypes.byref(ws),
                                                ctypes.byref(ex)), op_type)
    finally:
        for h in handles:
            _capi.tsrDestroyTensor(h)
    executor = ex.value
    status = _capi.tsrSetExecutorRepeatable(executor)
    if status != _capi.SUCCESS:
        err = _capi.error_for(status, op_type)
        _capi.tsrDestroyExecutor(executor)
        raise err
    sig_entry = (executor, ws.value)
    return sig_entry


def _with_ptr(info, ptr):
    from ._tensor import TensorInfo
    return TensorInfo(ptr, info.shape, info.strides, info.dtype, info.owner)


# -- allocation of results ------------------------------------------------------------------------

def _is_torch(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


def _empty_like_kind(template_inputs, shape, dtype):
    if any(_is_torch(x) for x in template_inputs):
        import torch
        return torch.empty(tuple(shape), dtype=getattr(torch, dtype.torch))
    if dtype.numpy is None:
        raise InvalidType("dtype %s has no numpy equivalent; pass torch tensors or out="
                          % dtype.name)
    import numpy as np
    return np.empty(tuple(shape), dtype=dtype.numpy)


def _run(op_type, inputs, out_shape, out_dtype, out, attrs, stream):
    """`inputs` may hold TensorInfo objects already described by the caller (one description
    per tensor and call: reading a numpy array's interface is not free)."""
    if out is None:
        out = _empty_like_kind([getattr(i, "owner", i) for i in inputs], out_shape, out_dtype)
    call(op_type, inputs, [out], attrs, stream)
    return out


def _broadcast(a, b):
    sa, sb = list(a), list(b)
    n = max(len(sa), len(sb))
    sa = [1] * (n - len(sa)) + sa
    sb = [1] * (n - len(sb)) + sb
    out = []
    for x, y in zip(sa, sb):
        if x != y and x != 1 and y != 1:
            raise InvalidArgument("shapes %s and %s do not broadcast" % (list(a), list(b)))
        out.append(y if x == 1 else x)
    return out


def _same_kind_empty(x, y):
    """The result of an elementwise op on x and y when both are numpy arrays or both torch
    tensors of one shape (the common case, without describing them); None otherwise."""
    kind = type(x)
    if kind is not type(y) or (y is not None and x.shape != y.shape):
        return None
    np = sys.modules.get("numpy")
    if np is not None and kind is np.ndarray:
        return np.empty(x.shape, x.dtype)
    torch = sys.modules.get("torch")
    if torch is not None and kind is torch.Tensor:
        return torch.empty(x.shape, dtype=x.dtype)
    return None


_fast = _capi.fast


def _binary(op_type):
    def fn(x, y, out=None, stream=None):
        if out is None:
            out = _same_kind_empty(x, y)
        if out is not None:
            # The repeated synchronous call, inline (call() is the same with more steps).
            if _fast is not None and stream is None and not device._checked:
                st = _fast.op_run(op_type, None, (x, y, out), 2)
                if st is not None:
                    if st:
                        _raise_failed(st, op_type)
                    return out
            call(op_type, (x, y), (out,), None, stream)
            return out
        ix, iy = describe(x, "x"), describe(y, "y")
        return _run(op_type, [ix, iy], _broadcast(ix.shape, iy.shape), ix.dtype, out, None,
                    stream)
    fn.__name__ = op_type.lower()
    fn.__doc__ = "%s(x, y, out=None, stream=None): elementwise with broadcasting." % op_type
    return fn


def _unary(op_type):
    def fn(x, out=None, stream=None):
        if out is None:
            out = _same_kind_empty(x, x)
        if out is not None:
            if _fast is not None and stream is None and not device._checked:
                st = _fast.op_run(op_type, None, (x, out), 1)
                if st is not None:
                    if st:
                        _raise_failed(st, op_type)
                    return out
            call(op_type, (x,), (out,), None, stream)
            return out
        ix = describe(x, "x")
        return _run(op_type, [ix], ix.shape, ix.dtype, out, None, stream)
    fn.__name__ = op_type.lower()
    fn.__doc__ = "%s(x, out=None, stream=None): elementwise." % op_type
    return fn


def _scalar_op(op_type):
    def fn(x, value, out=None, stream=None):
        ix = describe(x, "x")
        return _run(op_type, [ix], ix.shape, ix.dtype, out, {"value": float(value)}, stream)
    fn.__name__ = op_type.lower()
    fn.__doc__ = "%s(x, value, out=None, stream=None): x op scalar." % op_type
    return fn


add = _binary("Add")
sub = _binary("Sub")
mul = _binary("Mul")
div = _binary("Div")
maximum = _binary("Maximum")
minimum = _binary("Minimum")
abs = _unary("Abs")  # noqa: A001 - the op's name
exp = _unary("Exp")
log = _unary("Log")
sqrt = _unary("Sqrt")
rsqrt = _unary("Rsqrt")
relu = _unary("Relu")
sigmoid = _unary("Sigmoid")
adds = _scalar_op("Adds")
muls = _scalar_op("Muls")


def _dtype_arg(dtype):
    if isinstance(dtype, dtypes.DataType):
        return dtype
    name = str(dtype)
    for prefix in ("torch.", "numpy."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    d = dtypes.BY_TORCH.get(name) or dtypes.BY_NUMPY.get(name) or dtypes.BY_NAME.get(name.upper())
    if d is None:
        raise InvalidType("cast: unknown dtype %r" % (dtype,))
    return d


def cast(x, dtype, out=None, stream=None):
    """x converted to `dtype` (a pl.DT_*, numpy or torch dtype, or a name)."""
    d = _dtype_arg(dtype)
    ix = describe(x, "x")
    return _run("Cast", [x], ix.shape, d, out, {"dst_type": d.tsr}, stream)


def rms_norm(x, gamma, epsilon=None, out=None, stream=None):
    """y = x * rsqrt(mean(x^2, last axis) + epsilon) * gamma."""
    ix = describe(x, "x")
    attrs = None if epsilon is None else {"epsilon": float(epsilon)}
    return _run("RmsNorm", [x, gamma], ix.shape, ix.dtype, out, attrs, stream)


def add_rms_norm(x1, x2, gamma, epsilon=None, out=None, x_out=None, stream=None):
    """(rms_norm(x1 + x2), x1 + x2)."""
    ix = describe(x1, "x1")
    if out is None:
        out = _empty_like_kind([x1, x2], ix.shape, ix.dtype)
    if x_out is None:
        x_out = _empty_like_kind([x1, x2], ix.shape, ix.dtype)
    attrs = None if epsilon is None else {"epsilon": float(epsilon)}
    call("AddRmsNorm", [x1, x2, gamma], [out, x_out], attrs, stream)
    return out, x_out


def layer_norm(x, gamma, beta, epsilon=None, out=None, stream=None):
    """y = (x - mean) * rsqrt(var + epsilon) * gamma + beta over the last axis."""
    ix = describe(x, "x")
    attrs = None if epsilon is None else {"epsilon": float(epsilon)}
    return _run("LayerNorm", [x, gamma, beta], ix.shape, ix.dtype, out, attrs, stream)


def softmax(x, dim=-1, out=None, stream=None):
    ix = describe(x, "x")
    return _run("Softmax", [x], ix.shape, ix.dtype, out, {"dim": int(dim)}, stream)


def swiglu(x, dim=-1, out=None, stream=None):
    """silu(a) * b where x's last axis splits into halves a | b."""
    ix = describe(x, "x")
    shape = list(ix.shape)
    if shape:
        shape[-1] //= 2
    return _run("SwiGlu", [x], shape, ix.dtype, out, {"dim": int(dim)}, stream)


def _matmul_dtype(ix):
    return dtypes.INT32 if ix.dtype.name == "INT8" else ix.dtype


def _matrix(shape, transposed, name):
    if len(shape) < 2:
        raise InvalidArgument("%s must have at least 2 dimensions, got shape %s"
                              % (name, list(shape)))
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transposed else (rows, cols)


def matmul(x1, x2, bias=None, transpose_x1=False, transpose_x2=False, out=None, stream=None):
    """x1 @ x2 (+ bias over the last axis) on the cube: float32/float16/bfloat16 with fp32
    accumulation, int8 -> int32. transpose_x1/x2 read x1 as [K, M] / x2 as [N, K]."""
    i1, i2 = describe(x1, "x1"), describe(x2, "x2")
    m, _ = _matrix(i1.shape, transpose_x1, "x1")
    _, n = _matrix(i2.shape, transpose_x2, "x2")
    return _run("MatMul", [i1, i2, bias], [m, n], _matmul_dtype(i1), out,
                {"transpose_x1": bool(transpose_x1), "transpose_x2": bool(transpose_x2)}, stream)


def batch_matmul(x1, x2, adj_x1=False, adj_x2=False, out=None, stream=None):
    """Batched x1 @ x2 with numpy broadcasting of the batch dimensions."""
    i1, i2 = describe(x1, "x1"), describe(x2, "x2")
    m, _ = _matrix(i1.shape, adj_x1, "x1")
    _, n = _matrix(i2.shape, adj_x2, "x2")
    batch = _broadcast(list(i1.shape[:-2]), list(i2.shape[:-2]))
    return _run("BatchMatMul", [i1, i2], batch + [m, n], _matmul_dtype(i1), out,
                {"adj_x1": bool(adj_x1), "adj_x2": bool(adj_x2)}, stream)


def addmm(self, mat1, mat2, beta=1.0, alpha=1.0, out=None, stream=None):
    """beta * self + alpha * (mat1 @ mat2); self broadcasts to [M, N]."""
    i1, i2 = describe(mat1, "mat1"), describe(mat2, "mat2")
    return _run("Addmm", [self, i1, i2], [i1.shape[-2], i2.shape[-1]], _matmul_dtype(i1), out,
                {"beta": float(beta), "alpha": float(alpha)}, stream)


def matmul_act(x1, x2, bias=None, act="none", negative_slope=0.01, out=None, stream=None):
    """act(x1 @ x2 + bias), act in none/relu/gelu/silu/leaky_relu, fused on the vector cores."""
    i1, i2 = describe(x1, "x1"), describe(x2, "x2")
    return _run("MatMulAct", [i1, i2, bias], [i1.shape[-2], i2.shape[-1]], _matmul_dtype(i1),
                out, {"act": str(act), "negative_slope": float(negative_slope)}, stream)


# The CLI's op names (MatMul -> mat_mul) reach the same functions.
mat_mul = matmul
batch_mat_mul = batch_matmul
mat_mul_act = matmul_act
