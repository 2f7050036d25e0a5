// tessera._fast: the hot paths of the Python package in C, over tessera's C API.
//
// ctypes costs about 0.3-0.5 us per call plus the Python code around it (reading a numpy array's
// address, shape and strides, building a cache key), which made a repeated ops.add on 1K elements
// ~10 us and a JIT launch ~6 us. Here one call reads the tensors through the buffer protocol (or
// torch's accessors), finds the cached executor or kernel plan and runs it. Anything unusual
// (a miss, an argument of another kind, a value that does not fit) returns None and the Python
// code takes its general path, which also raises the precise errors.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
// Only the array struct and its inline accessors: no numpy C-API table, so numpy is imported
// when the program imports it, not when tessera is.
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>

#include <cstdint>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "tessera/tessera_nn.h"

namespace {

constexpr int kMaxRank = 8;

// tsrDataType codes (include/tessera/tessera_nn.h), as python/tessera/dtypes.py lists them.
constexpr int kFloat = 0, kFloat16 = 1, kInt8 = 2, kInt32 = 3, kUint8 = 4, kInt16 = 6, kInt64 = 9,
              kBool = 12;

PyObject* g_ndarray = nullptr;       // numpy.ndarray
PyObject* g_torch_tensor = nullptr;  // torch.Tensor, once the package has seen one
PyObject* g_torch_dtypes = nullptr;  // torch.dtype -> tsrDataType code
PyObject* g_str_data_ptr = nullptr;
PyObject* g_str_stride = nullptr;
PyObject* g_str_shape = nullptr;
PyObject* g_str_dtype = nullptr;
PyObject* g_str_is_cpu = nullptr;

struct TensorRef {
  void* ptr = nullptr;
  int ndim = 0;
  int dtype = -1;
  int64_t shape[kMaxRank];
  int64_t strides[kMaxRank];  // elements
};

int NumpyCode(const PyArray_Descr* d) {
  if (d->byteorder == '>') return -1;
  switch (d->type_num) {
    case NPY_FLOAT:
      return kFloat;
    case NPY_HALF:
      return kFloat16;
    case NPY_BYTE:
      return kInt8;
    case NPY_UBYTE:
      return kUint8;
    case NPY_SHORT:
      return kInt16;
    case NPY_INT:
      return kInt32;
    case NPY_LONG:
    case NPY_LONGLONG:
      return d->elsize == 8 ? kInt64 : -1;
    case NPY_BOOL:
      return kBool;
    default:
      return -1;
  }
}

bool ReadInts(PyObject* seq, int64_t* out, int n) {
  if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) return false;
  for (int i = 0; i < n; ++i) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
    if (out[i] == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
  }
  return true;
}

// Reads a numpy array or a torch CPU tensor without copies; false for anything else (the Python
// path then describes it or raises).
bool Describe(PyObject* o, TensorRef* t) {
  PyTypeObject* type = Py_TYPE(o);
  if (g_ndarray != nullptr && type == reinterpret_cast<PyTypeObject*>(g_ndarray)) {
    auto* a = reinterpret_cast<PyArrayObject*>(o);
    const PyArray_Descr* d = PyArray_DESCR(a);
    t->dtype = NumpyCode(d);
    t->ndim = PyArray_NDIM(a);
    if (t->dtype < 0 || t->ndim > kMaxRank || d->elsize <= 0) return false;
    t->ptr = PyArray_DATA(a);
    const npy_intp* shape = PyArray_DIMS(a);
    const npy_intp* strides = PyArray_STRIDES(a);
    for (int i = 0; i < t->ndim; ++i) {
      if (strides[i] % d->elsize != 0) return false;
      t->shape[i] = shape[i];
      t->strides[i] = strides[i] / d->elsize;
    }
    return true;
  }
  if (g_torch_tensor != nullptr && type == reinterpret_cast<PyTypeObject*>(g_torch_tensor)) {
    PyObject* is_cpu = PyObject_GetAttr(o, g_str_is_cpu);
    const bool cpu = is_cpu == Py_True;
    Py_XDECREF(is_cpu);
    if (!cpu) {
      PyErr_Clear();
      return false;
    }
    PyObject* dtype = PyObject_GetAttr(o, g_str_dtype);
    PyObject* code = dtype != nullptr ? PyDict_GetItemWithError(g_torch_dtypes, dtype) : nullptr;
    Py_XDECREF(dtype);
    if (code == nullptr) {
      PyErr_Clear();
      return false;
    }
    t->dtype = static_cast<int>(PyLong_AsLong(code));
    PyObject* shape = PyObject_GetAttr(o, g_str_shape);
    PyObject* strides = PyObject_CallMethodNoArgs(o, g_str_stride);
    PyObject* ptr = PyObject_CallMethodNoArgs(o, g_str_data_ptr);
    bool ok = shape != nullptr && strides != nullptr && ptr != nullptr;
    if (ok) {
      const Py_ssize_t n = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : kMaxRank + 1;
      ok = n <= kMaxRank && ReadInts(shape, t->shape, static_cast<int>(n)) &&
           ReadInts(strides, t->strides, static_cast<int>(n));
      t->ndim = static_cast<int>(n);
      t->ptr = ok ? PyLong_AsVoidPtr(ptr) : nullptr;
    }
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_XDECREF(ptr);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    return ok;
  }
  return false;
}

// -- operators: executors cached by call signature ----------------------------------------------

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : k)
      h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

struct OpEntry {
  PyObject* op = nullptr;     // the op name (owned)
  PyObject* attrs = nullptr;  // the attribute key (owned)
  tsrOpExecutor* executor = nullptr;
  uint64_t workspace = 0;
  tsrWorkspacePool* pool = nullptr;
  size_t tensors = 0;  // present tensors (inputs and outputs)
};

std::unordered_map<std::vector<int64_t>, OpEntry, KeyHash> g_ops;

// The signature of a call: op, attributes, and dtype, shape and strides of each tensor (None is
// an absent optional input). False when a tensor is not readable here.
bool OpKey(PyObject* op, PyObject* attrs, PyObject* tensors, Py_ssize_t n_inputs,
           std::vector<int64_t>& key, std::vector<void*>& ptrs) {
  const Py_hash_t op_hash = PyObject_Hash(op);
  const Py_hash_t attr_hash = attrs == Py_None ? 0 : PyObject_Hash(attrs);
  if (op_hash == -1 || attr_hash == -1) {
    PyErr_Clear();
    return false;
  }
  key.clear();
  ptrs.clear();
  key.push_back(op_hash);
  key.push_back(attr_hash);
  key.push_back(n_inputs);
  const Py_ssize_t n = PyTuple_GET_SIZE(tensors);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = PyTuple_GET_ITEM(tensors, i);
    if (o == Py_None) {
      key.push_back(-1);
      continue;
    }
    TensorRef t;
    if (!Describe(o, &t)) return false;
    key.push_back(t.dtype);
    key.push_back(t.ndim);
    key.insert(key.end(), t.shape, t.shape + t.ndim);
    key.insert(key.end(), t.strides, t.strides + t.ndim);
    ptrs.push_back(t.ptr);
  }
  return true;
}

// op_run(op, attrs, tensors, n_inputs) -> None on a miss, else the status of running the cached
// executor on the default stream and synchronising it.
PyObject* OpRun(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  static thread_local std::vector<int64_t> key;
  static thread_local std::vector<void*> ptrs;
  if (nargs != 4 || !PyTuple_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "op_run(op, attrs, tensors, n_inputs)");
    return nullptr;
  }
  if (!OpKey(args[0], args[1], args[2], PyLong_AsSsize_t(args[3]), key, ptrs)) Py_RETURN_NONE;
  auto it = g_ops.find(key);
  if (it == g_ops.end()) Py_RETURN_NONE;
  OpEntry& e = it->second;
  const int same_op = PyObject_RichCompareBool(e.op, args[0], Py_EQ);
  const int same_attrs = PyObject_RichCompareBool(e.attrs, args[1], Py_EQ);
  if (same_op != 1 || same_attrs != 1 || e.tensors != ptrs.size()) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  // Every address, every time: the Python path and checked mode (staged copies) re-point the
  // same executor.
  tsrStatus st = TSR_SUCCESS;
  for (size_t i = 0; i < ptrs.size() && st == TSR_SUCCESS; ++i)
    st = tsrSetExecutorTensorAddress(e.executor, i, ptrs[i]);
  void* ws = nullptr;
  if (st == TSR_SUCCESS && e.workspace != 0) st = tsrWorkspacePoolGet(e.pool, e.workspace, &ws);
  if (st == TSR_SUCCESS) {
    tsrOpExecutor* executor = e.executor;
    const uint64_t bytes = e.workspace;
    // Enqueued with the GIL held: another Python thread with the same signature re-points this
    // executor, so the addresses must be copied into the launch first. Only the wait releases it.
    st = tsrOpExecute(ws, bytes, executor, nullptr);
    if (st == TSR_SUCCESS) {
      Py_BEGIN_ALLOW_THREADS;
      st = tsrSynchronizeStream(nullptr);
      Py_END_ALLOW_THREADS;
    }
  }
  return PyLong_FromLong(st);
}

// op_remember(op, attrs, tensors, n_inputs, executor, workspace, pool): caches a repeatable
// executor the Python path made for this signature (default stream).
PyObject* OpRemember(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 7 || !PyTuple_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError,
                    "op_remember(op, attrs, tensors, n_inputs, executor, workspace, pool)");
    return nullptr;
  }
  std::vector<int64_t> key;
  std::vector<void*> ptrs;
  OpEntry e;
  if (!OpKey(args[0], args[1], args[2], PyLong_AsSsize_t(args[3]), key, ptrs)) Py_RETURN_NONE;
  e.tensors = ptrs.size();
  e.executor = static_cast<tsrOpExecutor*>(PyLong_AsVoidPtr(args[4]));
  e.workspace = PyLong_AsUnsignedLongLong(args[5]);
  e.pool = static_cast<tsrWorkspacePool*>(args[6] == Py_None ? nullptr : PyLong_AsVoidPtr(args[6]));
  if (PyErr_Occurred()) return nullptr;
  Py_INCREF(args[0]);
  Py_INCREF(args[1]);
  e.op = args[0];
  e.attrs = args[1];
  auto [it, inserted] = g_ops.try_emplace(std::move(key), e);
  if (!inserted) {
    Py_DECREF(it->second.op);
    Py_DECREF(it->second.attrs);
    it->second = e;
  }
  Py_RETURN_NONE;
}

// op_forget(executor): drops the entries of an executor the Python cache is destroying.
PyObject* OpForget(PyObject*, PyObject* arg) {
  void* executor = PyLong_AsVoidPtr(arg);
  if (PyErr_Occurred()) return nullptr;
  for (auto it = g_ops.begin(); it != g_ops.end();) {
    if (it->second.executor == executor) {
      Py_DECREF(it->second.op);
      Py_DECREF(it->second.attrs);
      it = g_ops.erase(it);
    } else {
      ++it;
    }
  }
  Py_RETURN_NONE;
}

// -- JIT kernel launches ------------------------------------------------------------------------

// One parameter of a kernel: how its Python argument becomes the C value(s) of the entry point.
struct Param {
  char kind;  // 'p' pointer, 't' tensor (pointer + dims), 's' scalar, 'g' TilingData
  int dtype;  // tsrDataType code for p/t (-1: any), scalar type char for s
  std::vector<int64_t> dims;  // t: fixed dims, -1 where read at launch
};

using PackedEntry = int (*)(uint32_t, void*, char*, size_t, void* const*);

struct Plan {
  PackedEntry fn = nullptr;
  char* errbuf = nullptr;
  std::vector<Param> params;
  PyObject* tiling_cls = nullptr;  // owned
  PyObject* tiling_fn = nullptr;   // owned: instance -> bytes
  size_t slots = 0;                // C values of the entry point
};

void DestroyPlan(PyObject* capsule) {
  auto* plan = static_cast<Plan*>(PyCapsule_GetPointer(capsule, "tessera.plan"));
  if (plan == nullptr) return;
  Py_XDECREF(plan->tiling_cls);
  Py_XDECREF(plan->tiling_fn);
  delete plan;
}

// make_plan(entry_address, errbuf_address, params, tiling_cls, tiling_fn); params is a list of
// (kind, dtype, dims) tuples.
PyObject* MakePlan(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5 || !PyList_Check(args[2])) {
    PyErr_SetString(PyExc_TypeError, "make_plan(entry, errbuf, params, tiling_cls, tiling_fn)");
    return nullptr;
  }
  auto* plan = new Plan;
  plan->fn = reinterpret_cast<PackedEntry>(PyLong_AsVoidPtr(args[0]));
  plan->errbuf = static_cast<char*>(PyLong_AsVoidPtr(args[1]));
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args[2]); ++i) {
    PyObject* item = PyList_GET_ITEM(args[2], i);
    const char* kind = nullptr;
    int dtype = 0;
    PyObject* dims = nullptr;
    if (!PyArg_ParseTuple(item, "siO", &kind, &dtype, &dims)) {
      delete plan;
      return nullptr;
    }
    Param p{kind[0], dtype, {}};
    if (p.kind == 't') {
      for (Py_ssize_t j = 0; j < PySequence_Size(dims); ++j) {
        PyObject* d = PySequence_GetItem(dims, j);
        p.dims.push_back(PyLong_AsLongLong(d));
        Py_XDECREF(d);
      }
    }
    plan->slots += 1 + p.dims.size();
    plan->params.push_back(std::move(p));
  }
  if (PyErr_Occurred()) {
    delete plan;
    return nullptr;
  }
  Py_INCREF(args[3]);
  Py_INCREF(args[4]);
  plan->tiling_cls = args[3];
  plan->tiling_fn = args[4];
  return PyCapsule_New(plan, "tessera.plan", DestroyPlan);
}

union Slot {
  void* p;
  int64_t i64;
  int32_t i32;
  int16_t i16;
  int8_t i8;
  uint8_t u8;
  bool b;
  float f;
};

// A scalar argument as the parameter's C type; false when it is not one or does not fit.
bool Scalar(PyObject* o, char type, Slot* s) {
  if (type == '?') {
    if (!PyBool_Check(o)) return false;
    s->b = o == Py_True;
    return true;
  }
  if (PyBool_Check(o)) return false;
  if (type == 'f') {
    if (!PyFloat_Check(o) && !PyLong_Check(o)) return false;
    const double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    s->f = static_cast<float>(v);
    return true;
  }
  if (!PyLong_Check(o)) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  switch (type) {
    case 'q':
      s->i64 = v;
      return true;
    case 'i':
      s->i32 = static_cast<int32_t>(v);
      return v == s->i32;
    case 'h':
      s->i16 = static_cast<int16_t>(v);
      return v == s->i16;
    case 'b':
      s->i8 = static_cast<int8_t>(v);
      return v == s->i8;
    case 'B':
      s->u8 = static_cast<uint8_t>(v);
      return v == s->u8;
    default:
      return false;
  }
}

bool Contiguous(const TensorRef& t) {
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

constexpr Py_ssize_t kDrainEvery = 4096;

// Holds `args` until the stream is synchronised: device._pending[handle][0] (the layout
// python/tessera/device.py keeps).
bool KeepAlive(PyObject* pending, PyObject* handle_obj, tsrStream handle, PyObject* args) {
  PyObject* key = handle_obj == Py_None ? PyLong_FromLong(0) : (Py_INCREF(handle_obj), handle_obj);
  if (key == nullptr) return false;
  PyObject* entry = PyDict_GetItemWithError(pending, key);
  if (entry == nullptr) {
    if (PyErr_Occurred()) {
      Py_DECREF(key);
      return false;
    }
    entry = Py_BuildValue("([][])");
    const bool ok = entry != nullptr && PyDict_SetItem(pending, key, entry) == 0;
    Py_XDECREF(entry);  // the dict holds it
    if (!ok) {
      Py_DECREF(key);
      return false;
    }
  }
  Py_DECREF(key);
  PyObject* objects = PyTuple_GET_ITEM(entry, 0);
  if (PyList_Append(objects, args) != 0) return false;
  // Bound the list for programs that never synchronise: drop it once the stream is idle.
  if (PyList_GET_SIZE(objects) >= kDrainEvery && tsrQueryStream(handle) == TSR_SUCCESS)
    return PyList_SetSlice(objects, 0, PyList_GET_SIZE(objects), nullptr) == 0;
  return true;
}

// launch(plan, block_dim, handle, args, pending) -> None when the Python path must take the
// call (arguments it does not read here, or errors to report), else the launch status.
PyObject* Launch(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 5 || !PyTuple_Check(args[3]) || !PyDict_Check(args[4])) {
    PyErr_SetString(PyExc_TypeError, "launch(plan, block_dim, handle, args, pending)");
    return nullptr;
  }
  auto* plan = static_cast<Plan*>(PyCapsule_GetPointer(args[0], "tessera.plan"));
  if (plan == nullptr) return nullptr;
  PyObject* bd = args[1];
  if (!PyLong_CheckExact(bd)) Py_RETURN_NONE;
  const long long block_dim = PyLong_AsLongLong(bd);
  if (block_dim <= 0 || block_dim > UINT32_MAX) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  tsrStream stream = nullptr;
  if (args[2] != Py_None) stream = static_cast<tsrStream>(PyLong_AsVoidPtr(args[2]));
  PyObject* values = args[3];
  const size_t n = plan->params.size();
  if (static_cast<size_t>(PyTuple_GET_SIZE(values)) != n) Py_RETURN_NONE;
  constexpr size_t kInline = 32;
  Slot inline_slots[kInline];
  void* inline_ptrs[kInline];
  std::vector<Slot> heap_slots;
  std::vector<void*> heap_ptrs;
  Slot* slots = inline_slots;
  void** ptrs = inline_ptrs;
  if (plan->slots > kInline) {
    heap_slots.resize(plan->slots);
    heap_ptrs.resize(plan->slots);
    slots = heap_slots.data();
    ptrs = heap_ptrs.data();
  }
  PyObject* tiling_bytes = nullptr;
  size_t k = 0;
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i) {
    const Param& p = plan->params[i];
    PyObject* o = PyTuple_GET_ITEM(values, i);
    if (p.kind == 'p' || p.kind == 't') {
      if (o == Py_None && p.kind == 'p') {
        slots[k].p = nullptr;
        ptrs[k] = &slots[k];
        ++k;
        continue;
      }
      TensorRef t;
      ok = Describe(o, &t) && (p.dtype < 0 || t.dtype == p.dtype);
      if (ok && p.kind == 't') {
        ok = t.ndim == static_cast<int>(p.dims.size()) && Contiguous(t);
        for (int j = 0; ok && j < t.ndim; ++j)
          ok = p.dims[j] < 0 || p.dims[j] == t.shape[j];
      }
      if (!ok) break;
      slots[k].p = t.ptr;
      ptrs[k] = &slots[k];
      ++k;
      if (p.kind == 't') {
        for (int j = 0; j < t.ndim; ++j, ++k) {
          slots[k].i64 = t.shape[j];
          ptrs[k] = &slots[k];
        }
      }
    } else if (p.kind == 's') {
      ok = Scalar(o, static_cast<char>(p.dtype), &slots[k]);
      ptrs[k] = &slots[k];
      ++k;
    } else {
      ok = Py_TYPE(o) == reinterpret_cast<PyTypeObject*>(plan->tiling_cls);
      if (ok) {
        tiling_bytes = PyObject_CallOneArg(plan->tiling_fn, o);
        ok = tiling_bytes != nullptr && PyBytes_Check(tiling_bytes);
        if (!ok) {
          Py_XDECREF(tiling_bytes);
          PyErr_Clear();
          tiling_bytes = nullptr;
          break;
        }
        slots[k].p = PyBytes_AS_STRING(tiling_bytes);
        ptrs[k] = &slots[k];
        ++k;
      }
    }
  }
  if (!ok) {
    Py_XDECREF(tiling_bytes);
    Py_RETURN_NONE;
  }
  // The entry point copies the TilingData bytes before it returns.
  const int status = plan->fn(static_cast<uint32_t>(block_dim), stream, plan->errbuf, 1024, ptrs);
  Py_XDECREF(tiling_bytes);
  if (status == 0 && !KeepAlive(args[4], args[2], stream, values)) return nullptr;
  return PyLong_FromLong(status);
}

// configure(ndarray_type): numpy's array type (the package imports numpy first).
PyObject* Configure(PyObject*, PyObject* arg) {
  Py_XDECREF(g_ndarray);
  Py_INCREF(arg);
  g_ndarray = arg;
  Py_RETURN_NONE;
}

// set_torch(tensor_type, dtype_codes): torch.Tensor and {torch.dtype: tsrDataType code}.
PyObject* SetTorch(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyDict_Check(args[1])) {
    PyErr_SetString(PyExc_TypeError, "set_torch(tensor_type, dtype_codes)");
    return nullptr;
  }
  Py_XDECREF(g_torch_tensor);
  Py_XDECREF(g_torch_dtypes);
  Py_INCREF(args[0]);
  Py_INCREF(args[1]);
  g_torch_tensor = args[0];
  g_torch_dtypes = args[1];
  Py_RETURN_NONE;
}

PyMethodDef kMethods[] = {
    {"op_run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(OpRun)), METH_FASTCALL,
     "op_run(op, attrs, tensors, n_inputs) -> None (not cached) or the tsrStatus"},
    {"op_remember", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(OpRemember)),
     METH_FASTCALL, "op_remember(op, attrs, tensors, n_inputs, executor, workspace, pool)"},
    {"op_forget", OpForget, METH_O, "op_forget(executor)"},
    {"make_plan", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(MakePlan)),
     METH_FASTCALL, "make_plan(entry, errbuf, params, tiling_cls, tiling_fn) -> plan"},
    {"launch", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Launch)), METH_FASTCALL,
     "launch(plan, block_dim, handle, args, pending) -> None or the status"},
    {"configure", Configure, METH_O, "configure(numpy.ndarray)"},
    {"set_torch", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(SetTorch)),
     METH_FASTCALL, "set_torch(torch.Tensor, {torch.dtype: code})"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT,
                       "tessera._fast",
                       "The hot paths of tessera's Python package (ops calls, kernel launches).",
                       -1,
                       kMethods,
                       nullptr,
                       nullptr,
                       nullptr,
                       nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__fast() {
  g_str_data_ptr = PyUnicode_InternFromString("data_ptr");
  g_str_stride = PyUnicode_InternFromString("stride");
  g_str_shape = PyUnicode_InternFromString("shape");
  g_str_dtype = PyUnicode_InternFromString("dtype");
  g_str_is_cpu = PyUnicode_InternFromString("is_cpu");
  return PyModule_Create(&kModule);
}
