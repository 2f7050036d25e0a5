"""``@pl.jit``: Python kernels compiled to native code against tessera's kernel API.

Pipeline: the function's AST (read at decoration) -> C++ generated here, with TilingKey fields,
datatype variables and module constants folded and ``#line`` directives pointing at the Python
source -> g++ -> a shared object in a content-addressed disk cache -> loaded with ctypes and
launched through tessera's device runtime (``tessera::device::Launch``) on a tessera stream.

The disk cache key is the SHA-256 of the generated source, the compiler and its version, the
flags, the ISA level and tessera's version; writes go to a temporary file renamed into place, so
parallel processes never see a partial object. In front of it, a per-kernel table maps the
specialisation (key values, datatypes) to the loaded entry point.
"""
import ast
import ctypes
import functools
import hashlib
import inspect
import os
import textwrap
import threading

from . import _build, _capi, device, dtypes, tiling
from ._tensor import describe, pointer_of
from .errors import CompileError, InvalidArgument, InvalidType, InvalidVal, KernelSyntaxError
from .runtime.tilingkey import TilingKeySchema

_JIT_KWARGS = ("target", "arch", "auto_mutex", "name", "pipeline", "tiling_key", "datatype",
               "compile_timeout", "timeout")


def jit(fn=None, **kwargs):
    """``@pl.jit`` or ``@pl.jit(tiling_key=Key, datatype={...}, name=...)``."""
    unknown = [k for k in kwargs if k not in _JIT_KWARGS]
    if unknown:
        raise TypeError("jit() got unexpected keyword argument(s): %s" % ", ".join(unknown))
    caller = inspect.currentframe().f_back
    captured_locals = dict(caller.f_locals) if caller.f_code.co_name != "<module>" else {}

    def wrap(f):
        if not _is_tile_kernel(f, captured_locals):
            # PyPTO returns a pass-through wrapper for functions without tensor parameters.
            @functools.wraps(f)
            def passthrough(*a, **k):
                return f(*a, **k)
            return passthrough
        return JitKernel(f, captured_locals, **kwargs)

    if fn is not None:
        return wrap(fn)
    return wrap


def _is_tile_kernel(f, captured_locals):
    from . import language as pl
    try:
        ann = _resolved_annotations(f, captured_locals)
    except Exception:  # noqa: BLE001 - unresolvable annotations are reported by JitKernel
        return True
    for a in ann.values():
        if isinstance(a, (pl.PtrType, pl.TensorType, dtypes.DataType)):
            return True
    return False


def _resolved_annotations(f, captured_locals):
    out = {}
    env = dict(f.__globals__)
    env.update(captured_locals)
    for name, a in f.__annotations__.items():
        if name == "return":
            continue
        if isinstance(a, str):
            a = eval(a, env)  # noqa: S307 - annotations are the kernel author's own code
        out[name] = a
    return out


# ---------------------------------------------------------------------------------------------
# Values seen by the code generator
# ---------------------------------------------------------------------------------------------

class Const:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class RExpr:
    """A run-time scalar: C++ code and its type ('int64_t', 'double', 'bool')."""
    __slots__ = ("code", "ctype")

    def __init__(self, code, ctype):
        self.code = code
        self.ctype = ctype


class PtrVal:
    __slots__ = ("code", "dtype")

    def __init__(self, code, dtype):
        self.code = code
        self.dtype = dtype


class TensorVal:
    __slots__ = ("code", "dtype", "rank")

    def __init__(self, code, dtype, rank):
        self.code = code
        self.dtype = dtype
        self.rank = rank


class ShapeVal:
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


class TileVal:
    """A tile: `code` is a C++ lvalue (a LocalTensor for Vec tiles, a tsr_jit::CubeTile for cube
    tiles); `ptr` the pointer expression when the tile comes from a tile group."""
    __slots__ = ("code", "tt", "ptr")

    def __init__(self, code, tt, ptr=None):
        self.code = code
        self.tt = tt
        self.ptr = ptr


class TileGroupVal:
    __slots__ = ("code", "tt", "depth")

    def __init__(self, code, tt, depth):
        self.code = code
        self.tt = tt
        self.depth = depth


def _tile_cxx(tt):
    if tt.is_cube:
        return "tsr_jit::CubeTile<%s>" % tt.dtype.cxx
    return "LocalTensor<%s>" % tt.dtype.cxx


class TilingVal:
    __slots__ = ("code", "layout")

    def __init__(self, code, layout):
        self.code = code
        self.layout = layout


class ListVal:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


_CT_RANK = {"bool": 0, "int64_t": 1, "double": 2}

# Placeholder for ArenaTile's `optional` argument, by the tile's core side.
_OPTIONAL_TILE = "@optional_%s_tile@"


def _ctype_of_const(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64_t"
    if isinstance(v, float):
        return "double"
    return None


def _cxx_literal(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if v == -(1 << 63):
            return "INT64_MIN"
        return "int64_t{%d}" % v if v >= 0 else "(-int64_t{%d})" % (-v)
    if isinstance(v, float):
        if v != v:
            return "NAN"
        if v in (float("inf"), float("-inf")):
            return "INFINITY" if v > 0 else "(-INFINITY)"
        return repr(v)
    raise TypeError(v)


_VEC_BINARY = {"add": ("Add", "Adds"), "sub": ("Sub", None), "mul": ("Mul", "Muls"),
               "div": ("Div", None), "maximum": ("Max", "Maxs"), "minimum": ("Min", "Mins")}
_VEC_UNARY = {"abs": "Abs", "exp": "Exp", "log": "Ln", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
              "recip": "Reciprocal", "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh",
              "silu": "Silu", "gelu": "Gelu"}
_ROUND = {"none": "CAST_NONE", "rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL",
          "round": "CAST_ROUND", "trunc": "CAST_TRUNC", "odd": "CAST_ODD"}


class _Param:
    __slots__ = ("name", "kind", "dtype", "dims", "layout")

    def __init__(self, name, kind, dtype=None, dims=None, layout=None):
        self.name = name
        self.kind = kind      # 'ptr', 'tensor', 'scalar', 'tiling'
        self.dtype = dtype
        self.dims = dims
        self.layout = layout


# ---------------------------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------------------------

_PRELUDE_NAME = "tessera_jit_prelude.h"
_PRELUDE_DIR = os.path.dirname(os.path.abspath(__file__))
_PRELUDE_TEXT = None


def _prelude_text():
    global _PRELUDE_TEXT
    if _PRELUDE_TEXT is None:
        with open(os.path.join(_PRELUDE_DIR, _PRELUDE_NAME), "r", encoding="utf-8") as f:
            _PRELUDE_TEXT = f.read()
    return _PRELUDE_TEXT


class _Codegen:
    def __init__(self, kernel, consts):
        self.k = kernel
        self.consts = consts          # name -> python value (key fields, datatype vars)
        self.lines = []
        self.indent = 1
        self.vars = {}                # name -> value (RExpr for hoisted scalars, TileVal, ...)
        self.scalar_decl = {}         # name -> ctype of hoisted scalars
        self.scalar_init = {}         # name -> initial value (C++), "" for zero
        self.rt_depth = 0             # enclosing run-time if/for/while statements
        self.assign_counts = {}
        self.tmp = 0
        self.decls = []               # hoisted declarations (tiles, tile groups)
        self.section = None           # 'cube' / 'vector' inside pl.section_*()
        self.section_loops = 0        # loop depth at the section's start
        self.loops = 0
        self.side = None              # 'cube' / 'vector': the core type the ops need so far
        self.has_cube_section = False
        self.has_vector_section = False

    # -- errors and positions -----------------------------------------------------------------
    def err(self, node, message, hint=None):
        lineno = self.k.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.k.col_shift
        end_col = getattr(node, "end_col_offset", None)
        if end_col is not None:
            end_col += self.k.col_shift
            if getattr(node, "end_lineno", node.lineno) != node.lineno:
                end_col = None
        return KernelSyntaxError(message, self.k.filename, lineno, col,
                                 self.k.line_text(lineno), hint, end_col)

    def pyline(self, node):
        return self.k.first_line + node.lineno - 1

    def where(self, node):
        """A C++ string literal naming the kernel and the Python position (for runtime errors)."""
        text = "%s:%d" % (os.path.basename(self.k.filename), self.pyline(node))
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def emit(self, code):
        self.lines.append("  " * self.indent + code)

    def mark(self, node):
        line = self.pyline(node)
        self.emit("tsr_lg.line = %d;" % line)
        # #line names the line that follows it: the statement's code.
        self.lines.append('#line %d "%s"' % (line, self.k.filename.replace("\\", "\\\\")
                                             .replace('"', '\\"')))

    def fresh(self, prefix):
        self.tmp += 1
        return "tsr_%s%d" % (prefix, self.tmp)

    # -- entry ----------------------------------------------------------------------------------
    @property
    def mix(self):
        return self.has_cube_section and self.has_vector_section

    @property
    def kind(self):
        """'mix', 'aic' or 'aiv': the kernel type the sections (or, without them, the ops) need."""
        if self.mix:
            return "mix"
        if self.has_cube_section or (not self.has_vector_section and self.side == "cube"):
            return "aic"
        return "aiv"

    def _scan_sections(self, fn):
        for node in ast.walk(fn):
            if isinstance(node, ast.With) and len(node.items) == 1:
                ctx = node.items[0].context_expr
                f = self.resolve_callee(ctx.func) if isinstance(ctx, ast.Call) else None
                dsl = getattr(f, "_tessera_dsl", None)
                if dsl == "section_cube":
                    self.has_cube_section = True
                elif dsl == "section_vector":
                    self.has_vector_section = True

    def require_side(self, node, side, what, infer=True):
        """Checks that `what` (an op on the cube or the vector core) may run where it stands;
        with `infer`, a kernel without sections takes its type from it."""
        other = "vector" if side == "cube" else "cube"
        if self.mix:
            if self.section != side:
                raise self.err(node, "%s runs on the %s core: in a MIX kernel put it inside "
                                     "pl.section_%s()" % (what, side, side))
            return
        if (side == "cube" and self.has_vector_section and not self.has_cube_section) or \
                (side == "vector" and self.has_cube_section and not self.has_vector_section):
            raise self.err(node, "%s runs on the %s core, but this kernel has only "
                                 "pl.section_%s()" % (what, side, other),
                           hint="add a pl.section_%s() block for it (the kernel becomes MIX)"
                           % side)
        if not infer:
            return
        if self.side is not None and self.side != side:
            raise self.err(node, "%s runs on the %s core, but this kernel already uses the %s "
                                 "core" % (what, side, self.side),
                           hint="put the cube part in pl.section_cube() and the vector part in "
                                "pl.section_vector() (a MIX kernel)")
        self.side = side

    def generate(self):
        fn = self.k.func_ast
        self._count_assignments(fn)
        self._scan_sections(fn)
        for p in self.k.params:
            if p.kind == "ptr":
                self.vars[p.name] = PtrVal("p_" + p.name, p.dtype)
            elif p.kind == "tensor":
                self.vars[p.name] = TensorVal("t_" + p.name, p.dtype, len(p.dims))
            elif p.kind == "scalar":
                ct = "double" if p.dtype is dtypes.FP32 else \
                    ("bool" if p.dtype is dtypes.BOOL else "int64_t")
                self.vars[p.name] = RExpr("static_cast<%s>(s_%s)" % (ct, p.name), ct)
            else:
                self.vars[p.name] = TilingVal("g_" + p.name, p.layout)
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        self.block(body)
        return self.lines

    def _count_assignments(self, fn):
        for node in ast.walk(fn):
            if isinstance(node, (ast.For, ast.While)):
                # A name assigned inside a loop changes per iteration: never fold it.
                for n in ast.walk(node):
                    targets = []
                    if isinstance(n, ast.Assign):
                        targets = n.targets
                    elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
                        targets = [n.target]
                    for t in targets:
                        for nn in ast.walk(t):
                            if isinstance(nn, ast.Name):
                                self.assign_counts[nn.id] = 99

    # -- statements -----------------------------------------------------------------------------
    def block(self, stmts):
        for s in stmts:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, ast.Pass):
            return
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return
            if not isinstance(s.value, ast.Call):
                raise self.err(s, "expression statement has no effect")
            self.mark(s)
            self.call(s.value, statement=True)
            return
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.err(s, "chained assignment is not supported")
            self.assign(s, s.targets[0], s.value)
            return
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                raise self.err(s, "a declaration without a value is not supported")
            self.assign(s, s.target, s.value)
            return
        if isinstance(s, ast.AugAssign):
            target = s.target
            if not isinstance(target, ast.Name):
                raise self.err(s, "augmented assignment needs a plain name")
            value = ast.BinOp(left=ast.Name(id=target.id, ctx=ast.Load()), op=s.op, right=s.value)
            ast.copy_location(value, s)
            ast.copy_location(value.left, target)
            self.assign(s, target, value)
            return
        if isinstance(s, ast.For):
            self.for_(s)
            return
        if isinstance(s, ast.While):
            self.while_(s)
            return
        if isinstance(s, ast.If):
            self.if_(s)
            return
        if isinstance(s, (ast.Break, ast.Continue)):
            word = "break" if isinstance(s, ast.Break) else "continue"
            if self.mix and self.section is not None and self.loops <= self.section_loops:
                raise self.err(s, "'%s' would leave a section of a MIX kernel before its "
                                  "cross-core flag" % word,
                               hint="leave the loop outside the pl.section_*() block")
            self.mark(s)
            self.emit(word + ";")
            return
        if isinstance(s, ast.Return):
            if s.value is not None:
                raise self.err(s, "kernels return nothing; only a bare 'return' is allowed")
            if self.mix and self.section is not None:
                raise self.err(s, "'return' inside a section of a MIX kernel would skip its "
                                  "cross-core flag")
            self.mark(s)
            self.emit("return;")
            return
        if isinstance(s, ast.With):
            self.with_(s)
            return
        raise self.err(s, "statement '%s' is not supported in a kernel" % type(s).__name__,
                       hint="supported: assignments, pl.* calls, for-in-pl.range, if, while, "
                            "break, continue, return, with pl.section_vector()")

    def assign(self, s, target, value_node):
        if isinstance(target, ast.Tuple):
            if not isinstance(value_node, ast.Tuple) or len(value_node.elts) != len(target.elts):
                raise self.err(s, "tuple assignment needs a tuple of the same length on the right")
            values = [self.expr(v) for v in value_node.elts]
            # Evaluate all right-hand sides before assigning (a, b = b, a).
            staged = []
            for v, t in zip(values, target.elts):
                if isinstance(v, RExpr):
                    tmp = self.fresh("t")
                    self.mark(s)
                    self.emit("const auto %s = %s;" % (tmp, v.code))
                    v = RExpr(tmp, v.ctype)
                staged.append((t, v))
            for t, v in staged:
                self.bind(s, t, v)
            return
        if not isinstance(target, ast.Name):
            raise self.err(target, "assignment target must be a name")
        if isinstance(value_node, ast.Call):
            fn = self.resolve_callee(value_node.func)
            dsl = getattr(fn, "_tessera_dsl", None)
            if dsl in ("make_tensor", "make_tile", "make_tile_group"):
                self.mark(s)
                self.declare_object(s, target.id, value_node, dsl)
                return
        value = self.expr(value_node)
        self.bind(s, target, value)

    def bind(self, s, target, value):
        name = target.id
        if name in self.consts or name in {p.name for p in self.k.params}:
            raise self.err(target, "cannot assign to '%s' (a parameter or TilingKey field)" % name)
        cur = self.vars.get(name)
        in_loop = self.assign_counts.get(name, 0) >= 99
        if isinstance(value, Const):
            if not in_loop and self.rt_depth == 0 and not isinstance(cur, RExpr):
                self.vars[name] = value  # folded: straight-line code at compile time
                return
            if _ctype_of_const(value.value) is None:
                raise self.err(target, "'%s' gets a compile-time %s under a run-time condition or "
                                       "loop; only scalars can" % (name, type(value.value).__name__))
            value = RExpr(_cxx_literal(value.value), _ctype_of_const(value.value))
        if isinstance(value, RExpr):
            ctype = self.scalar_decl.get(name)
            if ctype is None:
                init = ""
                if isinstance(cur, Const):
                    # A folded constant becomes a variable here; earlier uses were folded, so the
                    # variable starts with the constant's value.
                    init = _cxx_literal(cur.value) if _ctype_of_const(cur.value) else ""
                    if not init:
                        raise self.err(target, "'%s' changes kind (from %s to a scalar)"
                                       % (name, type(cur.value).__name__))
                elif cur is not None:
                    raise self.err(target, "'%s' changes kind (from %s to a scalar)"
                                   % (name, type(cur).__name__))
                ctype = value.ctype
                if init and _CT_RANK[_ctype_of_const(cur.value)] > _CT_RANK[ctype]:
                    ctype = _ctype_of_const(cur.value)
                self.scalar_decl[name] = ctype
                self.scalar_init[name] = init
                self.vars[name] = RExpr("v_" + name, ctype)
            elif _CT_RANK[value.ctype] > _CT_RANK[ctype]:
                raise self.err(target, "'%s' was an %s and is assigned a %s here; convert "
                                       "explicitly with int()" % (name, ctype, value.ctype))
            self.mark(s)
            self.emit("v_%s = static_cast<%s>(%s);" % (name, ctype, value.code))
            return
        if isinstance(value, TileVal) and value.ptr is not None:
            # A tile taken from a tile group: a pointer, re-pointed wherever it is assigned.
            var = "o_" + name
            if cur is None:
                self.decls.append("%s* %s = nullptr;" % (_tile_cxx(value.tt), var))
            elif not (isinstance(cur, TileVal) and cur.ptr is not None and cur.tt == value.tt):
                raise self.err(target, "'%s' holds tiles of a tile group of %r; it cannot also "
                                       "hold this value" % (name, getattr(cur, "tt", cur)))
            self.mark(s)
            self.emit("%s = %s;" % (var, value.ptr))
            self.vars[name] = TileVal("tsr_jit::Deref(%s, %s)" % (var, self.where(s)), value.tt,
                                      ptr=var)
            return
        if isinstance(value, (TensorVal, TileVal, PtrVal, TilingVal, ListVal, ShapeVal,
                              TileGroupVal)):
            if cur is not None or in_loop or self.rt_depth > 0:
                raise self.err(target, "'%s': tensors and tiles are bound once, outside run-time "
                                       "branches and loops" % name)
            self.vars[name] = value
            return
        raise self.err(target, "cannot assign this value")

    def declare_object(self, s, name, call, dsl):
        if name in self.vars or self.rt_depth > 0 or self.assign_counts.get(name, 0) >= 99:
            raise self.err(s, "'%s': tensors and tiles are bound once, outside run-time branches "
                              "and loops" % name)
        args, kwargs = self.call_args(call)
        if dsl == "make_tensor":
            val = self.make_tensor(call, "o_" + name, args, kwargs)
        elif dsl == "make_tile_group":
            val = self.make_tile_group(call, "o_" + name, args, kwargs)
        else:
            val = self.make_tile(call, "o_" + name, args, kwargs)
        self.vars[name] = val

    def for_(self, s):
        if s.orelse:
            raise self.err(s, "for-else is not supported")
        it = s.iter
        fn = self.resolve_callee(it.func) if isinstance(it, ast.Call) else None
        if getattr(fn, "_tessera_dsl", None) != "range":
            raise self.err(it, "For loop must use pl.range()")
        if it.keywords:
            raise self.err(it, "pl.range takes positional arguments only")
        args = [self.scalar(a, "pl.range bound") for a in it.args]
        if not 1 <= len(args) <= 3:
            raise self.err(it, "pl.range takes 1 to 3 arguments, got %d" % len(args))
        if len(args) == 1:
            start, stop, step = RExpr("int64_t{0}", "int64_t"), args[0], RExpr("int64_t{1}",
                                                                                "int64_t")
        elif len(args) == 2:
            start, stop, step = args[0], args[1], RExpr("int64_t{1}", "int64_t")
        else:
            start, stop, step = args
        for a, n in zip((start, stop, step), it.args if len(it.args) == 3 else it.args):
            if a.ctype == "double":
                raise self.err(n, "pl.range bounds must be integers")
        if not isinstance(s.target, ast.Name):
            raise self.err(s.target, "the loop variable must be a name")
        name = s.target.id
        if self.scalar_decl.get(name, "int64_t") != "int64_t":
            raise self.err(s.target, "loop variable '%s' was a %s" % (name, self.scalar_decl[name]))
        self.scalar_decl[name] = "int64_t"
        self.vars[name] = RExpr("v_" + name, "int64_t")
        self.mark(s)
        b, e, st = self.fresh("b"), self.fresh("e"), self.fresh("s")
        self.emit("{")
        self.indent += 1
        self.emit("const int64_t %s = %s, %s = %s, %s = %s;" % (b, start.code, e, stop.code, st,
                                                               step.code))
        step_const = self.try_const(it.args[2]) if len(it.args) == 3 else 1
        if step_const is None:
            self.emit("if (%s == 0) tsr_jit::Fail(%s, \"pl.range() step must not be zero\");"
                      % (st, self.where(s)))
            cond = "(%s > 0 ? v_%s < %s : v_%s > %s)" % (st, name, e, name, e)
        elif step_const == 0:
            raise self.err(it.args[2], "pl.range() step must not be zero")
        else:
            cond = "v_%s %s %s" % (name, "<" if step_const > 0 else ">", e)
        self.emit("for (v_%s = %s; %s; v_%s += %s) {" % (name, b, cond, name, st))
        self.indent += 1
        self.rt_depth += 1
        self.loops += 1
        self.block(s.body)
        self.loops -= 1
        self.rt_depth -= 1
        self.indent -= 1
        self.emit("}")
        self.indent -= 1
        self.emit("}")

    def while_(self, s):
        if s.orelse:
            raise self.err(s, "while-else is not supported")
        c = self.try_const(s.test)
        if c is not None and not c:
            return
        self.mark(s)
        if c is not None:
            self.emit("while (true) {")
        else:
            # Re-evaluated each iteration, as in Python.
            self.emit("while (true) {")
            self.indent += 1
            cond = self.condition(s.test)
            self.emit("if (!(%s)) break;" % cond)
            self.indent -= 1
        self.indent += 1
        self.rt_depth += 1
        self.loops += 1
        self.block(s.body)
        self.loops -= 1
        self.rt_depth -= 1
        self.indent -= 1
        self.emit("}")

    def if_(self, s):
        test = s.test
        forced = False
        if isinstance(test, ast.Call):
            fn = self.resolve_callee(test.func)
            if getattr(fn, "_tessera_dsl", None) == "constexpr":
                if len(test.args) != 1:
                    raise self.err(test, "pl.constexpr takes one condition")
                test = test.args[0]
                forced = True
        c = self.try_const(test)
        if c is None and forced:
            raise self.err(test, "pl.constexpr condition is not a compile-time constant",
                           hint="use TilingKey fields, datatype variables or module constants")
        if c is not None:
            self.block(s.body if c else s.orelse)
            return
        self.mark(s)
        self.emit("if (%s) {" % self.condition(test))
        self.indent += 1
        self.rt_depth += 1
        self.block(s.body)
        self.indent -= 1
        if s.orelse:
            self.emit("} else {")
            self.indent += 1
            self.block(s.orelse)
            self.indent -= 1
        self.rt_depth -= 1
        self.emit("}")

    def with_(self, s):
        if len(s.items) != 1 or s.items[0].optional_vars is not None:
            raise self.err(s, "a with statement must hold exactly one of pl.section_vector() or "
                              "pl.section_cube()")
        ctx = s.items[0].context_expr
        fn = self.resolve_callee(ctx.func) if isinstance(ctx, ast.Call) else None
        dsl = getattr(fn, "_tessera_dsl", None)
        if dsl in ("section_vector", "section_cube"):
            side = "cube" if dsl == "section_cube" else "vector"
            if self.section is not None:
                raise self.err(ctx, "pl.%s() inside pl.section_%s(): sections do not nest"
                               % (dsl, self.section))
            self.section, self.section_loops = side, self.loops
            if not self.mix:
                self.block(s.body)
                self.section = None
                return
            self.mark(s)
            if side == "cube":
                self.emit("if (tsr_jit::IsCube()) {")
                self.emit("  tsr_jit::CubeStart(tsr_pending);")
            else:
                self.emit("if (!tsr_jit::IsCube()) {")
                self.emit("  tsr_jit::VectorStart();")
            self.indent += 1
            self.block(s.body)
            self.emit("tsr_jit::CubeDone(tsr_pending);" if side == "cube"
                      else "tsr_jit::VectorDone();")
            self.indent -= 1
            self.emit("}")
            self.section = None
            return
        raise self.err(ctx, "a with statement must hold exactly one of pl.section_vector() or "
                            "pl.section_cube()")

    # -- expressions ----------------------------------------------------------------------------
    def try_const(self, node):
        try:
            v = self.expr(node)
        except KernelSyntaxError:
            raise
        return v.value if isinstance(v, Const) else None

    def condition(self, node):
        v = self.expr(node)
        if isinstance(v, Const):
            return "true" if v.value else "false"
        if isinstance(v, RExpr):
            return "static_cast<bool>(%s)" % v.code
        raise self.err(node, "condition must be a scalar")

    def scalar(self, node, what):
        v = self.expr(node)
        if isinstance(v, Const):
            ct = _ctype_of_const(v.value)
            if ct is None:
                raise self.err(node, "%s must be a number, got %r" % (what, v.value))
            return RExpr(_cxx_literal(v.value), ct)
        if isinstance(v, RExpr):
            return v
        raise self.err(node, "%s must be a scalar, got a %s" % (what, type(v).__name__))

    def lookup(self, node, name):
        if name in self.vars:
            return self.vars[name]
        if name in self.consts:
            return Const(self.consts[name])
        if name in self.k.captured_locals:
            return Const(self.k.captured_locals[name])
        g = self.k.fn.__globals__
        if name in g:
            return Const(g[name])
        import builtins
        if hasattr(builtins, name):
            return Const(getattr(builtins, name))
        raise self.err(node, "name '%s' is not defined" % name)

    def resolve_callee(self, node):
        try:
            v = self.expr(node)
        except KernelSyntaxError:
            return None
        return v.value if isinstance(v, Const) else None

    def expr(self, node):
        if isinstance(node, ast.Constant):
            return Const(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node, node.id)
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value)
            if isinstance(base, TilingVal):
                f = next((f for f in base.layout.fields if f.name == node.attr), None)
                if f is None:
                    raise self.err(node, "TilingData '%s' has no field '%s'"
                                   % (base.layout.name, node.attr))
                if f.is_array:
                    return ListVal(("tiling_array", base, f))
                ct = {"int": "int64_t", "float": "double", "bool": "bool"}[f.type]
                return RExpr("static_cast<%s>(%s.%s)" % (ct, base.code, f.name), ct)
            if isinstance(base, TensorVal) and node.attr == "shape":
                return ShapeVal(base)
            if isinstance(base, Const):
                try:
                    return Const(getattr(base.value, node.attr))
                except AttributeError:
                    raise self.err(node, "%r has no attribute '%s'" % (base.value, node.attr)) \
                        from None
            raise self.err(node, "attribute '%s' is not supported here" % node.attr)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.expr(e) for e in node.elts]
            if all(isinstance(i, Const) for i in items):
                return Const([i.value for i in items])
            return ListVal(items)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.UnaryOp):
            return self.unaryop(node)
        if isinstance(node, ast.BoolOp):
            vals = [self.expr(v) for v in node.values]
            if all(isinstance(v, Const) for v in vals):
                r = vals[0].value
                for v in vals[1:]:
                    r = (r and v.value) if isinstance(node.op, ast.And) else (r or v.value)
                return Const(r)
            op = " && " if isinstance(node.op, ast.And) else " || "
            parts = []
            for v, n in zip(vals, node.values):
                parts.append(self.as_bool(v, n))
            return RExpr("(" + op.join(parts) + ")", "bool")
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            c = self.try_const(node.test)
            if c is not None:
                return self.expr(node.body if c else node.orelse)
            a = self.scalar(node.body, "conditional expression")
            b = self.scalar(node.orelse, "conditional expression")
            ct = max(a.ctype, b.ctype, key=lambda t: _CT_RANK[t])
            return RExpr("(%s ? static_cast<%s>(%s) : static_cast<%s>(%s))"
                         % (self.condition(node.test), ct, a.code, ct, b.code), ct)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.err(node, "expression '%s' is not supported in a kernel"
                       % type(node).__name__)

    def as_bool(self, v, node):
        if isinstance(v, Const):
            return "true" if v.value else "false"
        if isinstance(v, RExpr):
            return "static_cast<bool>(%s)" % v.code
        raise self.err(node, "expected a scalar")

    def subscript(self, node):
        base = self.expr(node.value)
        idx_node = node.slice
        if isinstance(base, Const):
            i = self.expr(idx_node)
            if isinstance(i, Const):
                try:
                    return Const(base.value[i.value])
                except Exception as e:  # noqa: BLE001 - reported at the subscript
                    raise self.err(node, "cannot index %r with %r: %s" % (base.value, i.value, e)) \
                        from None
            raise self.err(node, "a compile-time sequence needs a compile-time index")
        if isinstance(base, ShapeVal):
            i = self.try_const(idx_node)
            if not isinstance(i, int):
                raise self.err(idx_node, "tensor.shape needs a literal index")
            rank = base.tensor.rank
            if not -rank <= i < rank:
                raise self.err(idx_node, "shape index %d out of range for a rank-%d tensor"
                               % (i, rank))
            return RExpr("%s.shape[%d]" % (base.tensor.code, i % rank), "int64_t")
        if isinstance(base, ListVal) and isinstance(base.items, tuple) and \
                base.items[0] == "tiling_array":
            _, tv, f = base.items
            ct = {"int": "int64_t", "float": "double", "bool": "bool"}[f.type]
            i = self.try_const(idx_node)
            if i is not None:
                if not isinstance(i, int) or isinstance(i, bool):
                    raise self.err(idx_node, "index must be an int")
                if not -f.length <= i < f.length:
                    raise self.err(idx_node, "index %d out of bounds for tiling field '%s' of %d "
                                             "elements" % (i, f.name, f.length))
                return RExpr("static_cast<%s>(%s.%s[%d])" % (ct, tv.code, f.name, i % f.length),
                             ct)
            r = self.scalar(idx_node, "index")
            if r.ctype != "int64_t":
                raise self.err(idx_node, "index must be an int")
            return RExpr("static_cast<%s>(%s.%s[tsr_jit::Index(%s, %d, %s)])"
                         % (ct, tv.code, f.name, r.code, f.length, self.where(node)), ct)
        if isinstance(base, ListVal):
            i = self.try_const(idx_node)
            if isinstance(i, int) and -len(base.items) <= i < len(base.items):
                return base.items[i]
            raise self.err(idx_node, "list index must be a literal within the list")
        if isinstance(base, TileGroupVal):
            i = self.scalar(idx_node, "tile group index")
            if i.ctype != "int64_t":
                raise self.err(idx_node, "a tile group index must be an int")
            ptr = "%s.At(%s, %s)" % (base.code, i.code, self.where(node))
            return TileVal("(*%s)" % ptr, base.tt, ptr=ptr)
        if isinstance(base, RExpr):
            raise self.err(node, "cannot subscript a scalar")
        raise self.err(node, "subscript is not supported on this value")

    def binop(self, node):
        a = self.expr(node.left)
        b = self.expr(node.right)
        if isinstance(a, Const) and isinstance(b, Const):
            try:
                return Const(_PY_BINOPS[type(node.op)](a.value, b.value))
            except KeyError:
                raise self.err(node, "operator not supported") from None
            except Exception as e:  # noqa: BLE001 - e.g. division by zero in a constant
                raise self.err(node, "constant expression fails: %s" % e) from None
        a = self.scalar(node.left, "operand")
        b = self.scalar(node.right, "operand")
        ct = max(a.ctype, b.ctype, key=lambda t: _CT_RANK[t])
        if ct == "bool":
            ct = "int64_t"
        op = type(node.op)
        ca = "static_cast<%s>(%s)" % (ct, a.code)
        cb = "static_cast<%s>(%s)" % (ct, b.code)
        if op is ast.Div:
            return RExpr("(static_cast<double>(%s) / static_cast<double>(%s))" % (a.code, b.code),
                         "double")
        if op is ast.FloorDiv:
            if ct == "double":
                return RExpr("tsr_jit::FloorDivF(%s, %s)" % (ca, cb), "double")
            return RExpr("tsr_jit::FloorDiv(%s, %s, %s)" % (ca, cb, self.where(node)), ct)
        if op is ast.Mod:
            if ct == "double":
                return RExpr("tsr_jit::ModF(%s, %s)" % (ca, cb), "double")
            return RExpr("tsr_jit::Mod(%s, %s, %s)" % (ca, cb, self.where(node)), ct)
        sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
               ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}.get(op)
        if sym is None:
            raise self.err(node, "operator '%s' is not supported on run-time values"
                           % op.__name__)
        if sym in ("&", "|", "^", "<<", ">>") and ct == "double":
            raise self.err(node, "bitwise operators need integers")
        return RExpr("(%s %s %s)" % (ca, sym, cb), ct)

    def unaryop(self, node):
        v = self.expr(node.operand)
        if isinstance(v, Const):
            return Const(_PY_UNARY[type(node.op)](v.value))
        r = self.scalar(node.operand, "operand")
        if isinstance(node.op, ast.Not):
            return RExpr("(!static_cast<bool>(%s))" % r.code, "bool")
        if isinstance(node.op, ast.USub):
            ct = "int64_t" if r.ctype == "bool" else r.ctype
            return RExpr("(-static_cast<%s>(%s))" % (ct, r.code), ct)
        if isinstance(node.op, ast.UAdd):
            return r
        if r.ctype == "double":
            raise self.err(node, "~ needs an integer")
        return RExpr("(~static_cast<int64_t>(%s))" % r.code, "int64_t")

    def compare(self, node):
        left = node.left
        parts = []
        consts = []
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.Is, ast.IsNot)):
                lv = self.expr(left)
                rv = self.expr(right)
                if isinstance(rv, Const) and rv.value is None and isinstance(lv, PtrVal):
                    parts.append("(%s %s nullptr)" % (lv.code, "==" if isinstance(op, ast.Is)
                                                      else "!="))
                    consts.append(None)
                    left = right
                    continue
                if isinstance(lv, Const) and isinstance(rv, Const):
                    consts.append(Const((lv.value is rv.value) == isinstance(op, ast.Is)))
                    parts.append(None)
                    left = right
                    continue
                raise self.err(node, "'is None' is supported only on a pl.Ptr parameter name")
            lv = self.expr(left)
            rv = self.expr(right)
            if isinstance(lv, Const) and isinstance(rv, Const):
                try:
                    consts.append(Const(_PY_CMP[type(op)](lv.value, rv.value)))
                except KeyError:
                    raise self.err(node, "comparison not supported") from None
                parts.append(None)
            else:
                a = self.scalar(left, "comparison operand")
                b = self.scalar(right, "comparison operand")
                sym = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                       ast.NotEq: "!="}.get(type(op))
                if sym is None:
                    raise self.err(node, "comparison '%s' is not supported" % type(op).__name__)
                ct = max(a.ctype, b.ctype, key=lambda t: _CT_RANK[t])
                parts.append("(static_cast<%s>(%s) %s static_cast<%s>(%s))"
                             % (ct, a.code, sym, ct, b.code))
                consts.append(None)
            left = right
        if all(p is None for p in parts):
            return Const(all(c.value for c in consts))
        codes = []
        for p, c in zip(parts, consts):
            if p is not None:
                codes.append(p)
            elif not c.value:
                return Const(False)
        return RExpr("(" + " && ".join(codes) + ")", "bool")

    # -- calls ------------------------------------------------------------------------------------
    def call_args(self, node):
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg is not None}
        if any(k.arg is None for k in node.keywords) or \
                any(isinstance(a, ast.Starred) for a in node.args):
            raise self.err(node, "*args and **kwargs are not supported in kernel calls")
        return args, kwargs

    def group_method(self, node):
        """g.next() / g.current() / g.previous() on a tile group, else None."""
        if not isinstance(node.func, ast.Attribute):
            return None
        try:
            base = self.expr(node.func.value)
        except KernelSyntaxError:
            return None
        if not isinstance(base, TileGroupVal):
            return None
        method = node.func.attr
        if node.args or node.keywords:
            raise self.err(node, "tile group .%s() takes no arguments" % method)
        if method == "next":
            ptr = "%s.Next()" % base.code
        elif method in ("current", "previous"):
            ptr = "%s.%s(%s)" % (base.code, method.capitalize(), self.where(node))
        else:
            raise self.err(node.func, "a tile group has next(), current(), previous() and [i], "
                                      "not %s()" % method)
        return TileVal("(*%s)" % ptr, base.tt, ptr=ptr)

    def call(self, node, statement=False):
        tile = self.group_method(node)
        if tile is not None:
            if statement:
                self.emit("(void)%s;" % tile.ptr)
            return tile
        fn = self.resolve_callee(node.func)
        dsl = getattr(fn, "_tessera_dsl", None)
        import builtins
        if dsl is None:
            if fn in (builtins.min, builtins.max):
                dsl = fn.__name__
            elif fn in (builtins.int, builtins.float, builtins.bool):
                args, _ = self.call_args(node)
                if len(args) != 1:
                    raise self.err(node, "%s() takes one argument" % fn.__name__)
                if isinstance(args[0], Const):
                    return Const(fn(args[0].value))
                r = self.scalar(node.args[0], "argument")
                ct = {"int": "int64_t", "float": "double", "bool": "bool"}[fn.__name__]
                if fn is builtins.int and r.ctype == "double":
                    return RExpr("static_cast<int64_t>(std::trunc(%s))" % r.code, ct)
                return RExpr("static_cast<%s>(%s)" % (ct, r.code), ct)
            elif fn is not None and isinstance(fn, type) and fn.__name__ == "TileType":
                pass
            else:
                raise self.err(node.func, "call of '%s' is not supported in a kernel"
                               % ast.unparse(node.func),
                               hint="kernels call pl.* functions; helpers are not inlined yet")
        args, kwargs = self.call_args(node)
        from . import language as pl
        if fn is pl.TileType:
            if not all(isinstance(a, Const) for a in args) or \
                    not all(isinstance(v, Const) for v in kwargs.values()):
                raise self.err(node, "TileType arguments must be compile-time constants",
                               hint="tile shapes come from TilingKey fields or constants, "
                                    "not TilingData")
            try:
                return Const(pl.TileType(*[a.value for a in args],
                                         **{k: v.value for k, v in kwargs.items()}))
            except (TypeError, ValueError) as e:
                raise self.err(node, str(e)) from None
        if dsl in ("get_block_idx", "get_block_num", "get_subblock_idx", "get_subblock_num"):
            if args or kwargs:
                raise self.err(node, "pl.%s() takes no arguments" % dsl)
            cpp = {"get_block_idx": "GetBlockIdx", "get_block_num": "GetBlockNum",
                   "get_subblock_idx": "GetSubBlockIdx", "get_subblock_num": "GetSubBlockNum"}
            return RExpr("static_cast<int64_t>(tessera::device::%s())" % cpp[dsl], "int64_t")
        if dsl in ("min", "max"):
            if kwargs or len(args) < 2:
                raise self.err(node, "pl.%s takes two or more values" % dsl)
            if all(isinstance(a, Const) for a in args):
                return Const((min if dsl == "min" else max)(a.value for a in args))
            rs = [self.scalar(n, "pl.%s argument" % dsl) for n in node.args]
            ct = max((r.ctype for r in rs), key=lambda t: _CT_RANK[t])
            code = "static_cast<%s>(%s)" % (ct, rs[0].code)
            for r in rs[1:]:
                code = "std::%s<%s>(%s, static_cast<%s>(%s))" % (dsl, ct, code, ct, r.code)
            return RExpr(code, ct)
        if dsl == "const":
            if len(args) != 2 or not all(isinstance(a, Const) for a in args):
                raise self.err(node, "pl.const(value, dtype) needs compile-time arguments")
            return args[0]
        if dsl == "constexpr":
            if len(args) != 1 or not isinstance(args[0], Const):
                raise self.err(node, "pl.constexpr condition is not a compile-time constant")
            return args[0]
        if dsl in ("make_tensor", "make_tile", "make_tile_group"):
            raise self.err(node, "assign the result of pl.%s to a name" % dsl)
        if dsl == "range":
            raise self.err(node, "pl.range() is only allowed as a for loop's iterator")
        if dsl in ("load", "store", "load_tile", "store_tile"):
            self.load_store(node, dsl, args, kwargs)
            return None
        if dsl == "move":
            self.move(node, args, kwargs)
            return None
        if dsl in ("matmul", "matmul_acc"):
            self.matmul(node, dsl, args, kwargs)
            return None
        if dsl in _VEC_BINARY or dsl in _VEC_UNARY or dsl in ("neg", "cast", "copy", "fill"):
            self.vector(node, dsl, args, kwargs)
            return None
        raise self.err(node, "pl.%s is not supported yet" % dsl)

    def make_tensor(self, node, name, args, kwargs):
        names = ("ptr", "shape", "stride", "dtype")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.err(node, "make_tensor() got an unexpected keyword '%s'" % k)
            bound[k] = v
        ptr = bound.get("ptr")
        if not isinstance(ptr, PtrVal):
            raise self.err(node, "make_tensor needs a pl.Ptr parameter as its first argument")
        dtype = ptr.dtype
        ptr_code = ptr.code
        if isinstance(bound.get("dtype"), Const) and bound["dtype"].value is not None:
            dtype = bound["dtype"].value
            if not isinstance(dtype, dtypes.DataType):
                raise self.err(node, "make_tensor dtype must be a pl.DT_* constant, got %r"
                               % (dtype,))
            if dtype is not ptr.dtype:
                if ptr.dtype is not dtypes.UINT8:
                    raise self.err(node, "make_tensor dtype %r differs from the pointer's %r"
                                   % (dtype, ptr.dtype),
                                   hint="only a byte pointer (pl.Ptr[pl.DT_UINT8]) is viewed as "
                                        "another dtype")
                ptr_code = "reinterpret_cast<%s*>(%s)" % (dtype.cxx, ptr.code)
        shape = self.scalar_list(node, bound.get("shape"), "shape")
        rank = len(shape)
        if not 1 <= rank <= 2:
            raise self.err(node, "make_tensor supports rank 1 and 2, got rank %d" % rank)
        stride_v = bound.get("stride")
        if stride_v is None or (isinstance(stride_v, Const) and stride_v.value is None):
            stride = ["int64_t{1}"] if rank == 1 else ["(%s)" % shape[1], "int64_t{1}"]
        else:
            stride = self.scalar_list(node, stride_v, "stride")
            if len(stride) != rank:
                raise self.err(node, "make_tensor: %d strides for a rank-%d shape"
                               % (len(stride), rank))
        self.emit("const auto %s = tsr_jit::MakeTensor<%s, %d>(%s, {%s}, {%s}, %s);"
                  % (name, dtype.cxx, rank, ptr_code, ", ".join(shape), ", ".join(stride),
                     self.where(node)))
        return TensorVal(name, dtype, rank)

    def scalar_list(self, node, v, what):
        if isinstance(v, Const) and isinstance(v.value, (list, tuple)):
            items = [Const(x) for x in v.value]
        elif isinstance(v, ListVal) and isinstance(v.items, list):
            items = v.items
        else:
            raise self.err(node, "%s must be a list" % what)
        out = []
        for it in items:
            if isinstance(it, Const):
                if isinstance(it.value, bool) or not isinstance(it.value, int):
                    raise self.err(node, "%s entries must be ints, got %r" % (what, it.value))
                out.append(_cxx_literal(it.value))
            elif isinstance(it, RExpr) and it.ctype == "int64_t":
                out.append(it.code)
            else:
                raise self.err(node, "%s entries must be integers" % what)
        return out

    _SPACES = {"Vec": "kVec", "Mat": "kMat", "Left": "kLeft", "Right": "kRight", "Acc": "kAcc"}

    def tile_type_arg(self, node, v, api):
        from . import language as pl
        if not isinstance(v, Const) or not isinstance(v.value, pl.TileType):
            raise self.err(node, "%s needs a pl.TileType as its type" % api)
        return v.value

    def check_addr(self, node, tt, a):
        from . import language as pl
        align = pl.ALIGNMENT[tt.target_memory]
        if a < 0 or a % align:
            raise self.err(node, "Tile address 0x%x is not %d-byte aligned (%s)"
                           % (a, align, tt.target_memory.name))

    def tile_init(self, node, tt, addr):
        """The C++ expression creating a tile of `tt` at byte `addr` of its buffer."""
        side = "cube" if tt.is_cube else "vector"
        if self.section is not None:
            self.require_side(node, side, "a %s tile" % tt.target_memory.name, infer=False)
        # Whether a core without the tile's buffer gets an empty tile instead of an error
        # depends on the kernel type, known when the body is generated (see `generate`).
        mix = _OPTIONAL_TILE % side
        if not tt.is_cube:
            self.k.ub_high = max(self.k.ub_high, addr + tt.nbytes)
            return "tsr_jit::ArenaTile<%s>(tsr_jit::Space::kVec, %d, %d, %s, %s)" % (
                tt.dtype.cxx, addr, tt.shape[0] * tt.shape[1], mix, self.where(node))
        return "tsr_jit::MakeCubeTile<%s>(tsr_jit::Space::%s, %d, %d, %d, %s, %s)" % (
            tt.dtype.cxx, self._SPACES[tt.target_memory.name], addr, tt.shape[0], tt.shape[1],
            mix, self.where(node))

    def make_tile(self, node, name, args, kwargs):
        names = ("type", "addr", "size")
        bound = dict(zip(names, args))
        bound.update(kwargs)
        tt = self.tile_type_arg(node, bound.get("type") or bound.get("tile_type"), "make_tile")
        addr = bound.get("addr")
        if not isinstance(addr, Const) or isinstance(addr.value, bool) or \
                not isinstance(addr.value, int):
            raise self.err(node, "make_tile: addr must be a compile-time int (a byte address in "
                                 "the tile's buffer)")
        a = addr.value
        self.check_addr(node, tt, a)
        if bound.get("size") is not None and isinstance(bound["size"], Const) and \
                bound["size"].value is not None and bound["size"].value < tt.nbytes:
            raise self.err(node, "make_tile: size %d is smaller than the tile's %d bytes"
                           % (bound["size"].value, tt.nbytes))
        self.decls.append("%s %s;" % (_tile_cxx(tt), name))
        self.emit("%s = %s;" % (name, self.tile_init(node, tt, a)))
        return TileVal(name, tt)

    def make_tile_group(self, node, name, args, kwargs):
        from . import language as pl
        names = ("type", "addrs", "mutex_ids", "depth")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.err(node, "make_tile_group() got an unexpected keyword '%s'" % k)
            bound[k] = v
        tt = self.tile_type_arg(node, bound.get("type"), "make_tile_group")
        addrs = bound.get("addrs")
        if not isinstance(addrs, Const):
            raise self.err(node, "make_tile_group: addrs must be a compile-time int or list")
        depth_v = bound.get("depth")
        depth = depth_v.value if isinstance(depth_v, Const) else None
        mutex = bound.get("mutex_ids")
        mutex = mutex.value if isinstance(mutex, Const) else None
        if isinstance(addrs.value, (list, tuple)):
            slots = list(addrs.value)
        else:
            if depth is None:
                depth = len(mutex) if isinstance(mutex, (list, tuple)) and mutex else 2
            align = pl.ALIGNMENT[tt.target_memory]
            step = (tt.nbytes + align - 1) // align * align
            slots = [addrs.value + i * step for i in range(depth)]
        if not slots or any(isinstance(a, bool) or not isinstance(a, int) for a in slots):
            raise self.err(node, "make_tile_group: addrs must hold ints, got %r" % (addrs.value,))
        if depth is not None and depth != len(slots):
            raise self.err(node, "make_tile_group: depth %d but %d addresses" % (depth,
                                                                               len(slots)))
        for a in slots:
            self.check_addr(node, tt, a)
        self.decls.append("tsr_jit::TileGroup<%s, %d> %s;" % (_tile_cxx(tt), len(slots), name))
        for i, a in enumerate(slots):
            self.emit("%s.slots[%d] = %s;" % (name, i, self.tile_init(node, tt, a)))
        return TileGroupVal(name, tt, len(slots))

    def load_store(self, node, dsl, args, kwargs):
        if len(args) != 3:
            raise self.err(node, "pl.%s takes (destination, source, offsets)" % dsl)
        for k in kwargs:
            if kwargs[k] is not None and not (isinstance(kwargs[k], Const)
                                              and kwargs[k].value is None):
                raise self.err(node, "pl.%s: keyword '%s' is not supported" % (dsl, k))
        loading = dsl in ("load", "load_tile")
        if loading:
            tile, tensor = args[0], args[1]
        else:
            tensor, tile = args[0], args[1]
        if not isinstance(tile, TileVal):
            raise self.err(node, "pl.%s: the tile argument is not a tile" % dsl)
        if not isinstance(tensor, TensorVal):
            raise self.err(node, "pl.%s: the tensor argument is not a tensor (make_tensor)" % dsl)
        space = tile.tt.target_memory.name
        acc_store = not loading and space == "Acc"
        if acc_store:
            if tensor.dtype not in (dtypes.FP32, dtypes.FP16, dtypes.BF16):
                raise self.err(node, "pl.%s: an Acc tile stores to DT_FP32, DT_FP16 or DT_BF16 "
                                     "tensors (Fixpipe casts), not %r" % (dsl, tensor.dtype))
        elif tile.tt.dtype is not tensor.dtype:
            raise self.err(node, "pl.%s: tile dtype %r differs from tensor dtype %r"
                           % (dsl, tile.tt.dtype, tensor.dtype))
        if tile.tt.is_cube:
            if (loading and space != "Mat") or (not loading and space != "Acc"):
                raise self.err(node, "pl.%s: %s tiles %s" % (
                    dsl, space, "are filled by pl.move (load into a Mat tile)" if loading
                    else "are not stored; store the Acc tile of a matmul"))
            if tensor.rank != 2:
                raise self.err(node, "pl.%s: cube tiles move to and from rank-2 tensors" % dsl)
        self.require_side(node, "cube" if tile.tt.is_cube else "vector", "pl.%s" % dsl)
        offs = self.scalar_list(node, args[2], "offsets")
        if len(offs) != tensor.rank:
            raise self.err(node, "pl.%s: %d offsets for a rank-%d tensor"
                           % (dsl, len(offs), tensor.rank))
        r, c = tile.tt.shape
        if dsl in ("load_tile", "store_tile"):
            # Offsets counted in tiles.
            scale = [r, c] if tensor.rank == 2 else [r * c]
            offs = ["(%s * int64_t{%d})" % (o, k) for o, k in zip(offs, scale)]
        offs_code = "std::array<int64_t, %d>{%s}" % (tensor.rank, ", ".join(offs))
        where = self.where(node)
        if tile.tt.is_cube:
            if loading:
                self.emit("tsr_jit::LoadMat(%s, %s, %s, %s);" % (tile.code, tensor.code,
                                                                 offs_code, where))
            else:
                self.emit("tsr_jit::StoreAcc(%s, %s, %s, %s);" % (tensor.code, tile.code,
                                                                  offs_code, where))
        elif loading:
            self.emit("tsr_jit::Load(%s, %d, %d, %s, %s, %s);"
                      % (tile.code, r, c, tensor.code, offs_code, where))
        else:
            self.emit("tsr_jit::Store(%s, %s, %d, %d, %s, %s);"
                      % (tensor.code, tile.code, r, c, offs_code, where))

    def move(self, node, args, kwargs):
        if len(args) != 2 or kwargs:
            raise self.err(node, "pl.move takes (destination, source); offsets and modes are not "
                                 "supported")
        dst, src = args
        if not isinstance(dst, TileVal) or not isinstance(src, TileVal):
            raise self.err(node, "pl.move: both arguments must be tiles")
        ds, ss = dst.tt.target_memory.name, src.tt.target_memory.name
        if ss != "Mat" or ds not in ("Left", "Right"):
            raise self.err(node, "pl.move moves a Mat tile into a Left or Right tile, not %s -> %s"
                           % (ss, ds))
        if dst.tt.shape != src.tt.shape or dst.tt.dtype is not src.tt.dtype:
            raise self.err(node, "pl.move: %r and %r differ in shape or dtype" % (dst.tt, src.tt))
        self.require_side(node, "cube", "pl.move")
        self.emit("tsr_jit::MoveToL0(%s, %s, %s);" % (dst.code, src.code,
                                                      "true" if ds == "Right" else "false"))

    def matmul(self, node, dsl, args, kwargs):
        if len(args) != 3 or kwargs:
            raise self.err(node, "pl.%s takes (acc, lhs, rhs)" % dsl)
        acc, a, b = args
        for t, space, role in ((acc, "Acc", "acc"), (a, "Left", "lhs"), (b, "Right", "rhs")):
            if not isinstance(t, TileVal) or t.tt.target_memory.name != space:
                raise self.err(node, "pl.%s: %s must be a %s tile" % (dsl, role, space))
        if a.tt.dtype is not b.tt.dtype:
            raise self.err(node, "pl.%s: lhs %r and rhs %r differ in dtype" % (dsl, a.tt.dtype,
                                                                               b.tt.dtype))
        (m, k), (k2, n), (m2, n2) = a.tt.shape, b.tt.shape, acc.tt.shape
        if k != k2 or m != m2 or n != n2:
            raise self.err(node, "pl.%s: shapes [%d, %d] x [%d, %d] -> [%d, %d] do not match"
                           % (dsl, m, k, k2, n, m2, n2))
        self.require_side(node, "cube", "pl.%s" % dsl)
        self.emit("tsr_jit::Matmul(%s, %s, %s, %s, %s);" % (
            acc.code, a.code, b.code, "true" if dsl == "matmul" else "false", self.where(node)))

    def vector(self, node, dsl, args, kwargs):
        if not args or not isinstance(args[0], TileVal):
            raise self.err(node, "pl.%s: the first argument is the destination tile" % dsl)
        out = args[0]
        for t in args:
            if isinstance(t, TileVal) and t.tt.is_cube:
                raise self.err(node, "pl.%s works on Vec tiles; %r is a %s tile"
                               % (dsl, t.tt, t.tt.target_memory.name))
        self.require_side(node, "vector", "pl.%s" % dsl)
        n = out.tt.shape[0] * out.tt.shape[1]

        def same(t, role):
            if not isinstance(t, TileVal):
                raise self.err(node, "pl.%s: %s must be a tile" % (dsl, role))
            if t.tt.shape[0] * t.tt.shape[1] != n:
                raise self.err(node, "pl.%s: %s has %d elements, the destination %d (no "
                                     "broadcasting)" % (dsl, role, t.tt.shape[0] * t.tt.shape[1],
                                                       n))
            if dsl != "cast" and t.tt.dtype is not out.tt.dtype:
                raise self.err(node, "pl.%s: %s dtype %r differs from the destination's %r (no "
                                     "implicit promotion)" % (dsl, role, t.tt.dtype, out.tt.dtype))

        if dsl in _VEC_BINARY:
            if len(args) != 3 or kwargs:
                raise self.err(node, "pl.%s takes (out, lhs, rhs)" % dsl)
            same(args[1], "lhs")
            rhs = args[2]
            if isinstance(rhs, TileVal):
                same(rhs, "rhs")
                self.emit("%s(%s, %s, %s, %d);" % (_VEC_BINARY[dsl][0], out.code, args[1].code,
                                                   rhs.code, n))
                return
            s = self.scalar(node.args[2], "pl.%s scalar" % dsl)
            cast = "static_cast<%s>(%s)" % (out.tt.dtype.cxx, s.code)
            if dsl == "sub":
                self.emit("tsr_jit::SubScalar(%s, %s, %s, %d);" % (out.code, args[1].code, s.code,
                                                                   n))
            elif dsl == "div":
                self.emit("tsr_jit::DivScalar(%s, %s, %s, %d);" % (out.code, args[1].code, s.code,
                                                                   n))
            else:
                self.emit("%s(%s, %s, %s, %d);" % (_VEC_BINARY[dsl][1], out.code, args[1].code,
                                                   cast, n))
            return
        if dsl in _VEC_UNARY or dsl == "neg":
            if len(args) != 2 or kwargs:
                raise self.err(node, "pl.%s takes (out, src)" % dsl)
            same(args[1], "src")
            fn = "tsr_jit::Neg" if dsl == "neg" else _VEC_UNARY[dsl]
            self.emit("%s(%s, %s, %d);" % (fn, out.code, args[1].code, n))
            return
        if dsl == "copy":
            if len(args) != 2 or kwargs:
                raise self.err(node, "pl.copy takes (out, src)")
            same(args[1], "src")
            self.emit("DataCopy(%s, %s, %d);" % (out.code, args[1].code, n))
            return
        if dsl == "fill":
            if len(args) != 2 or kwargs:
                raise self.err(node, "pl.fill takes (out, value)")
            s = self.scalar(node.args[1], "pl.fill value")
            self.emit("Duplicate(%s, static_cast<%s>(%s), %d);" % (out.code, out.tt.dtype.cxx,
                                                                   s.code, n))
            return
        # cast
        if len(args) != 2:
            raise self.err(node, "pl.cast takes (out, src, mode=...)")
        same(args[1], "src")
        mode = kwargs.get("mode", Const("rint" if out.tt.dtype.itemsize < 4 else "none"))
        if not isinstance(mode, Const) or str(mode.value).lower() not in _ROUND:
            raise self.err(node, "pl.cast mode must be one of %s" % ", ".join(_ROUND))
        self.emit("Cast(%s, %s, RoundMode::%s, %d);" % (out.code, args[1].code,
                                                        _ROUND[str(mode.value).lower()], n))


_PY_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
              ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
              ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
              ast.Pow: lambda a, b: a ** b, ast.BitAnd: lambda a, b: a & b,
              ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
              ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b}
_PY_UNARY = {ast.Not: lambda a: not a, ast.USub: lambda a: -a, ast.UAdd: lambda a: +a,
             ast.Invert: lambda a: ~a}
_PY_CMP = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
           ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b,
           ast.NotEq: lambda a, b: a != b, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b}


# ---------------------------------------------------------------------------------------------
# Compiler driver and disk cache
# ---------------------------------------------------------------------------------------------

_lock = threading.RLock()
_compiler_ids = {}
_loaded_libs = []      # (ctypes lib, JitKernel) of every loaded kernel, for error annotation


def cache_dir():
    d = os.environ.get("TESSERA_JIT_CACHE_DIR")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "tessera", "jit",
                         _build.config()["version"])
    os.makedirs(d, exist_ok=True)
    return d


def isa_level():
    """The host's x86-64 micro-architecture level (the 'SoC' of a CPU), or the machine name."""
    import platform
    machine = platform.machine()
    if machine not in ("x86_64", "AMD64"):
        return machine
    try:
        with open("/proc/cpuinfo", "r", encoding="utf-8") as f:
            flags = set()
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        return "x86-64"
    if {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= flags and \
            {"avx2", "bmi2", "fma", "movbe"} <= flags:
        return "x86-64-v4"
    if {"avx2", "bmi1", "bmi2", "f16c", "fma", "movbe"} <= flags:
        return "x86-64-v3"
    if {"sse4_2", "popcnt", "ssse3"} <= flags:
        return "x86-64-v2"
    return "x86-64"


def _compiler():
    cfg = _build.config()
    return os.environ.get("TESSERA_JIT_CXX") or cfg["cxx"] or "g++"


def _compiler_id(cxx):
    """The compiler's first --version line. Running the compiler costs tens of milliseconds, so
    the answer is kept in the cache directory, keyed by the resolved executable's path, size and
    modification time (an upgraded compiler has a new mtime)."""
    import json
    import shutil
    with _lock:
        ident = _compiler_ids.get(cxx)
        if ident is not None:
            return ident
        exe = shutil.which(cxx) or cxx
        try:
            real = os.path.realpath(exe)
            st = os.stat(real)
            stamp = "%s:%d:%d" % (real, st.st_size, st.st_mtime_ns)
        except OSError:
            stamp = None
        record = os.path.join(cache_dir(), "compilers.json")
        known = {}
        if stamp is not None:
            try:
                with open(record, "r", encoding="utf-8") as f:
                    known = json.load(f)
                ident = known.get(stamp)
            except (OSError, ValueError):
                known = {}
        if ident is None:
            import subprocess  # here and in compile_source: a warm start never needs them
            import tempfile
            try:
                out = subprocess.run([cxx, "--version"], capture_output=True, text=True,
                                     timeout=60)
                ident = out.stdout.splitlines()[0] if out.stdout else cxx
            except (OSError, subprocess.SubprocessError) as e:
                raise CompileError("tessera JIT: cannot run the compiler '%s': %s" % (cxx, e)) \
                    from None
            if stamp is not None:
                known[stamp] = ident
                fd, tmp = tempfile.mkstemp(suffix=".json.tmp", dir=cache_dir())
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(known, f)
                os.replace(tmp, record)
        _compiler_ids[cxx] = ident
        return ident


def _flags():
    cfg = _build.config()
    isa = isa_level()
    flags = ["-std=c++20", "-fPIC", "-shared", "-fvisibility=hidden"]
    if os.environ.get("TESSERA_JIT_DEBUG") == "1":
        flags += ["-O0", "-g"]
    else:
        flags += ["-O2"]
    if isa.startswith("x86-64"):
        flags.append("-march=" + isa)
    flags += ["-I" + cfg["include_dir"]]
    extra = os.environ.get("TESSERA_JIT_CXXFLAGS")
    if extra:
        flags += extra.split()
    return flags, isa


def _link_args():
    libs = _build.config()["libraries"]
    out = []
    for name in ("kernel", "device", "tiling", "core"):
        out.append(libs[name])
        out.append("-Wl,-rpath," + os.path.dirname(libs[name]))
    return out


_STAMP = None


def _tessera_stamp():
    """Identifies the tessera build the kernels compile and link against: the libraries' sizes
    and modification times and the newest header. A rebuilt library or an edited header within
    one version gives new cache keys instead of stale objects."""
    global _STAMP
    if _STAMP is None:
        parts = []
        for name in ("kernel", "device", "tiling", "core"):
            path = _build.config()["libraries"][name]
            try:
                st = os.stat(path)
                parts.append("%s:%d:%d" % (path, st.st_size, st.st_mtime_ns))
            except OSError:
                parts.append(path + ":missing")
        parts.append(_header_stamp())
        _STAMP = "\0".join(parts)
    return _STAMP


def _header_stamp():
    newest = 0
    for root, _, files in os.walk(os.path.join(_build.config()["include_dir"], "tessera")):
        for f in files:
            try:
                newest = max(newest, os.stat(os.path.join(root, f)).st_mtime_ns)
            except OSError:
                pass
    return "headers:%d" % newest


# -- the precompiled prelude ----------------------------------------------------------------------
# Parsing tessera's kernel headers is most of a small kernel's compile time; the build compiles
# the prelude once (build_pch) for the flags the JIT uses on this machine. A compile whose flags
# or headers differ from the PCH's finds no directory for its key and parses the header itself.

def _pch_flags(flags):
    return [f for f in flags if f != "-shared"]


def _pch_dir(flags):
    cxx = _compiler()
    key = "\0".join([_prelude_text(), cxx, _compiler_id(cxx), " ".join(_pch_flags(flags)),
                     _header_stamp()])
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:24]
    return os.path.join(_build.build_dir(), "python", "jit_pch", digest)


def build_pch():
    """Compiles the prelude into a precompiled header for this machine's JIT flags (the build
    runs this after the libraries); returns its directory. Older ones are removed."""
    import shutil
    import subprocess
    flags, _ = _flags()
    d = _pch_dir(flags)
    gch = os.path.join(d, _PRELUDE_NAME + ".gch")
    if os.path.exists(gch):
        return d
    root = os.path.dirname(d)
    os.makedirs(root, exist_ok=True)
    tmp = d + ".tmp%d" % os.getpid()
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    header = os.path.join(tmp, _PRELUDE_NAME)
    with open(header, "w", encoding="utf-8") as f:
        f.write(_prelude_text())
    cmd = [_compiler()] + _pch_flags(flags) + ["-x", "c++-header", header, "-o", header + ".gch"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CompileError("tessera JIT: precompiling %s failed:\n%s\n  command: %s"
                           % (_PRELUDE_NAME, res.stderr[-4000:], " ".join(cmd)))
    for old in os.listdir(root):
        if old != os.path.basename(d) and ".tmp" not in old:
            shutil.rmtree(os.path.join(root, old), ignore_errors=True)
    try:
        os.replace(tmp, d)
    except OSError:  # another process put the same directory in place first
        shutil.rmtree(tmp, ignore_errors=True)
    return d


def _include_flags(flags):
    pch = _pch_dir(flags)
    found = ["-I" + pch] if os.path.exists(os.path.join(pch, _PRELUDE_NAME + ".gch")) else []
    return found + ["-I" + _PRELUDE_DIR]


class CompiledObject:
    __slots__ = ("path", "source_path", "cached", "seconds")

    def __init__(self, path, source_path, cached, seconds):
        self.path = path
        self.source_path = source_path
        self.cached = cached
        self.seconds = seconds


def compile_source(source, name, timeout=600):
    """The shared object for `source` from the disk cache, compiling it on a miss."""
    import fcntl
    import time
    cxx = _compiler()
    flags, isa = _flags()
    key_text = "\0".join([source, _prelude_text(), cxx, _compiler_id(cxx), " ".join(flags), isa,
                          _build.config()["version"], " ".join(_link_args()), _tessera_stamp()])
    digest = hashlib.sha256(key_text.encode("utf-8")).hexdigest()
    d = cache_dir()
    so = os.path.join(d, "%s_%s.so" % (name, digest[:24]))
    cpp = so[:-3] + ".cpp"
    always = os.environ.get("TESSERA_JIT_ALWAYS_COMPILE") == "1"
    if os.path.exists(so) and not always:
        return CompiledObject(so, cpp, True, 0.0)
    t0 = time.perf_counter()
    with open(so[:-3] + ".lock", "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if os.path.exists(so) and not always:
                return CompiledObject(so, cpp, True, time.perf_counter() - t0)
            import subprocess
            import tempfile
            fd, tmp_cpp = tempfile.mkstemp(suffix=".cpp", dir=d)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(source)
            os.replace(tmp_cpp, cpp)
            fd, tmp_so = tempfile.mkstemp(suffix=".so.tmp", dir=d)
            os.close(fd)
            cmd = [cxx] + flags + _include_flags(flags) + [cpp, "-o", tmp_so] + _link_args()
            try:
                res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                os.unlink(tmp_so)
                raise CompileError("tessera JIT: compiling kernel '%s' took longer than %d s "
                                   "(source kept at %s)" % (name, timeout, cpp)) from None
            if res.returncode != 0:
                os.unlink(tmp_so)
                raise CompileError(_compile_failure(name, res.stderr, cpp, cmd))
            os.replace(tmp_so, so)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return CompiledObject(so, cpp, False, time.perf_counter() - t0)


def _compile_failure(name, stderr, cpp, cmd):
    import re
    lines = stderr.splitlines()
    first = next((i for i, ln in enumerate(lines) if ": error:" in ln), None)
    excerpt = "\n".join(lines[:20] if first is None else lines[first:first + 3])
    # With #line directives, errors in kernel code name the Python file and line directly; errors
    # inside tessera's headers (a static_assert on a dtype) carry a "required from here" line
    # naming it. Show the first such Python position with its source line.
    for ln in ([lines[first]] if first is not None else []) + lines:
        m = re.match(r"^(.*?\.py):(\d+):(?:(\d+):)?", ln)
        if m:
            path, lineno = m.group(1), int(m.group(2))
            try:
                with open(path, "r", encoding="utf-8") as f:
                    text = f.read().splitlines()[lineno - 1]
            except (OSError, IndexError):
                text = ""
            excerpt = "%s\n  --> %s:%d\n   | %s" % (excerpt, path, lineno, text.rstrip())
            break
    return ("Failed to compile kernel '%s':\n%s\n  generated source kept at %s\n  command: %s"
            % (name, excerpt, cpp, " ".join(cmd)))


def annotate_kernel_error(err):
    """Adds the Python line of the kernel statement that failed (recorded by the kernel)."""
    found = []
    for lib, kernel in list(_loaded_libs):
        line = lib.tsr_jit_take_failed_line()
        if line > 0:
            found.append((kernel, line))
    if not found:
        return err
    kernel, line = found[0]
    text = str(err.args[0]) if err.args else str(err)
    src = kernel.line_text(line)
    text += "\n  at %s:%d (kernel '%s')%s" % (kernel.filename, line, kernel.name,
                                               ("\n   | " + src.strip()) if src else "")
    new = type(err)(text, code=getattr(err, "code", None))
    new.python_line = line
    new.python_file = kernel.filename
    return new


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------

_SCALAR_CTYPES = {"FP32": ctypes.c_float, "INT8": ctypes.c_int8, "INT16": ctypes.c_int16,
                  "INT32": ctypes.c_int32, "INT64": ctypes.c_int64, "UINT8": ctypes.c_uint8,
                  "BOOL": ctypes.c_bool}


class _Entry:
    """A loaded specialisation: the C entry point and what the launcher needs."""
    __slots__ = ("fn", "params", "lib", "compiled", "errbuf", "plan")

    def __init__(self, fn, params, lib, compiled):
        self.fn = fn
        self.params = params
        self.lib = lib
        self.compiled = compiled
        self.errbuf = ctypes.create_string_buffer(1024)
        self.plan = None


_SCALAR_CODES = {"FP32": "f", "INT8": "b", "INT16": "h", "INT32": "i", "INT64": "q",
                 "UINT8": "B", "BOOL": "?"}


def _fast_plan(lib, entry, params):
    """The C extension's launch plan for a loaded kernel (None without the extension)."""
    fast = _capi.fast
    if fast is None:
        return None
    spec = []
    tiling_cls = None
    for p in params:
        if p.kind == "ptr":
            # A byte pointer takes any tensor (make_tensor(dtype=) views it).
            spec.append(("p", -1 if p.dtype is dtypes.UINT8 else p.dtype.tsr, ()))
        elif p.kind == "tensor":
            spec.append(("t", p.dtype.tsr, tuple(d if type(d) is int else -1 for d in p.dims)))
        elif p.kind == "scalar":
            spec.append(("s", ord(_SCALAR_CODES[p.dtype.name]), ()))
        else:
            tiling_cls = p.layout.cls
            spec.append(("g", 0, ()))
    packed = ctypes.cast(lib.tsr_jit_launch_packed, ctypes.c_void_p).value
    return fast.make_plan(packed, ctypes.addressof(entry.errbuf), spec, tiling_cls,
                          tiling.tiling_instance_to_bytes)


class JitKernel:
    """A ``@pl.jit`` kernel. Launch with ``k[stream, block_dim](...)``,
    ``k[stream, block_dim, key](...)``, ``k[stream, block_dim, key, datatypes](...)``,
    ``k[block_dim](...)`` or ``k(...)`` (one block on the default stream)."""

    def __init__(self, fn, captured_locals, target=None, arch=None, auto_mutex=True, name=None,
                 pipeline=None, tiling_key=None, datatype=None, compile_timeout=None,
                 timeout=None):
        if pipeline is not None:
            raise InvalidArgument("jit(pipeline=...) is not supported yet")
        self.fn = fn
        self.name = name or fn.__name__
        if not isinstance(self.name, str) or not self.name.isidentifier() or \
                not self.name.isascii():
            raise InvalidArgument("jit(name=%r): a kernel name must be an ASCII identifier (it "
                                  "names the C++ function and the cached object)" % (self.name,))
        self.captured_locals = captured_locals
        # PyPTO's tests spell it timeout=, its signature compile_timeout=.
        self.compile_timeout = compile_timeout or timeout or 600
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        lines, first = inspect.getsourcelines(fn)
        self.first_line = first
        raw = "".join(lines)
        dedented = textwrap.dedent(raw)
        self.col_shift = len(raw.split("\n", 1)[0]) - len(dedented.split("\n", 1)[0])
        try:
            module = ast.parse(dedented)
        except SyntaxError as e:
            raise KernelSyntaxError("invalid Python in kernel '%s': %s" % (self.name, e.msg),
                                    self.filename, first + (e.lineno or 1) - 1,
                                    (e.offset or 1) - 1 + self.col_shift,
                                    self.line_text(first + (e.lineno or 1) - 1)) from None
        self.func_ast = next(n for n in module.body
                             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
        self.schema = TilingKeySchema(tiling_key) if tiling_key is not None else None
        self.datatype = dict(datatype or {})
        param_names = [a.arg for a in self.func_ast.args.args]
        if self.func_ast.args.vararg or self.func_ast.args.kwarg or \
                self.func_ast.args.kwonlyargs:
            raise self._decl_error(self.func_ast, "kernels take positional parameters only")
        if self.schema is not None:
            for f in self.schema.field_names:
                if f in param_names:
                    raise InvalidVal("TilingKey field '%s' has the same name as a parameter of "
                                     "kernel '%s'" % (f, self.name))
                g = fn.__globals__.get(f, None)
                if f in fn.__globals__ and not callable(g) and not inspect.ismodule(g):
                    raise InvalidVal("TilingKey field '%s' has the same name as a module-level "
                                     "variable of kernel '%s'" % (f, self.name))
        for p, var in self.datatype.items():
            if p not in param_names:
                raise InvalidVal("jit(datatype=...): '%s' is not a parameter of '%s'"
                                 % (p, self.name))
            if var in param_names or (self.schema and var in self.schema.field_names):
                raise InvalidVal("jit(datatype=...): type variable '%s' clashes with a parameter "
                                 "or TilingKey field" % var)
        self._entries = {}
        self._launchers = {}
        self.ub_high = 0
        self._src_lines = None
        # Without datatype variables the parameters resolve now, so bad annotations fail early.
        self._static_params = None if self.datatype else self._params({})
        functools.update_wrapper(self, fn)

    # -- helpers --------------------------------------------------------------------------------
    def line_text(self, lineno):
        if self._src_lines is None:
            try:
                with open(self.filename, "r", encoding="utf-8") as f:
                    self._src_lines = f.read().splitlines()
            except OSError:
                self._src_lines = []
        if 1 <= lineno <= len(self._src_lines):
            return self._src_lines[lineno - 1]
        return None

    def _decl_error(self, node, message, hint=None):
        lineno = self.first_line + node.lineno - 1
        return KernelSyntaxError(message, self.filename, lineno, node.col_offset + self.col_shift,
                                 self.line_text(lineno), hint)

    def _params(self, dtype_vars):
        from . import language as pl
        env = dict(self.fn.__globals__)
        env.update(self.captured_locals)
        env.update(dtype_vars)
        params = []
        args = self.func_ast.args.args
        for i, a in enumerate(args):
            if a.annotation is None:
                raise self._decl_error(a, "kernel parameter '%s' needs an annotation "
                                          "(pl.Ptr[...], pl.Tensor[...], pl.DT_* or a TilingData "
                                          "class)" % a.arg)
            try:
                ann = eval(compile(ast.Expression(a.annotation), self.filename, "eval"), env)
            except Exception as e:  # noqa: BLE001 - reported at the annotation
                raise self._decl_error(a.annotation, "cannot evaluate the annotation of '%s': %s"
                                       % (a.arg, e)) from None
            if isinstance(ann, pl.PtrType):
                if not isinstance(ann.dtype, dtypes.DataType):
                    raise self._decl_error(a.annotation, "pl.Ptr needs a pl.DT_* dtype")
                params.append(_Param(a.arg, "ptr", ann.dtype))
            elif isinstance(ann, pl.TensorType):
                if not isinstance(ann.dtype, dtypes.DataType):
                    raise self._decl_error(a.annotation, "pl.Tensor needs a pl.DT_* dtype")
                if not 1 <= len(ann.dims) <= 2:
                    raise self._decl_error(a.annotation, "pl.Tensor parameters of rank 1 and 2 "
                                                         "are supported")
                for d in ann.dims:
                    if not (d is pl.DYNAMIC or d is pl.STATIC or d is Ellipsis or
                            (isinstance(d, int) and not isinstance(d, bool) and d > 0)):
                        raise self._decl_error(a.annotation, "tensor dim %r must be a positive "
                                                             "int, pl.DYNAMIC, pl.STATIC or ..."
                                               % (d,))
                params.append(_Param(a.arg, "tensor", ann.dtype, dims=list(ann.dims)))
            elif isinstance(ann, dtypes.DataType):
                if ann.name not in _SCALAR_CTYPES:
                    raise self._decl_error(a.annotation, "scalar parameters of type %r are not "
                                                         "supported (no FP16/BF16 scalars)" % ann)
                params.append(_Param(a.arg, "scalar", ann))
            elif tiling.is_tiling_class(ann):
                if i != len(args) - 1:
                    raise self._decl_error(a, "the TilingData parameter must be the last "
                                              "parameter")
                params.append(_Param(a.arg, "tiling", layout=tiling.layout_of(ann)))
            else:
                raise self._decl_error(a.annotation, "unsupported annotation %r for '%s'"
                                       % (ann, a.arg))
        return params

    # -- code generation ------------------------------------------------------------------------
    def generate(self, key_values=(), dtype_vars=None):
        """The C++ source of one specialisation."""
        dtype_vars = dtype_vars or {}
        params = self._params(dtype_vars) if self.datatype else self._static_params
        consts = dict(dtype_vars)
        if self.schema is not None:
            consts.update(zip(self.schema.field_names, key_values))
        self.params = params
        gen = _Codegen(self, consts)
        body = gen.generate()
        sig = []
        entry_params = []
        call_args = []
        tiling_struct = ""
        hash_fn = "0"
        for p in params:
            if p.kind == "ptr":
                sig.append("%s* p_%s" % (p.dtype.cxx, p.name))
                entry_params.append("void* a_%s" % p.name)
                call_args.append("static_cast<%s*>(a_%s)" % (p.dtype.cxx, p.name))
            elif p.kind == "tensor":
                sig.append("%s* p_%s" % (p.dtype.cxx, p.name))
                entry_params.append("void* a_%s" % p.name)
                call_args.append("static_cast<%s*>(a_%s)" % (p.dtype.cxx, p.name))
                for j in range(len(p.dims)):
                    sig.append("int64_t d_%s_%d" % (p.name, j))
                    entry_params.append("int64_t a_%s_%d" % (p.name, j))
                    call_args.append("a_%s_%d" % (p.name, j))
            elif p.kind == "scalar":
                ct = "float" if p.dtype is dtypes.FP32 else p.dtype.cxx
                sig.append("%s s_%s" % (ct, p.name))
                entry_params.append("%s a_%s" % (ct, p.name))
                call_args.append("a_%s" % p.name)
            else:
                sname = "TsrTiling_" + p.layout.name
                tiling_struct = tiling.cxx_struct(p.layout.cls, sname)
                sig.append("%s g_%s" % (sname, p.name))
                entry_params.append("const void* a_%s" % p.name)
                call_args.append("tiling_value")
                hash_fn = "::tessera::tiling::TilingSchemaOf<tsr_jit::%s>().hash" % sname
        out = ["// Generated by tessera's Python JIT from %s:%d (kernel '%s')."
               % (self.filename, self.first_line, self.name), '#include "%s"' % _PRELUDE_NAME,
               "namespace tsr_jit {",
               tiling_struct]
        if tiling_struct:
            sp = next(p for p in params if p.kind == "tiling")
            out.append("static_assert(::tessera::tiling::TilingSchemaOf<TsrTiling_%s>().hash == "
                       "0x%016xull, \"TilingData layout differs between Python and C++\");"
                       % (sp.layout.name, sp.layout.hash))
        out.append("void kernel_%s(%s) {" % (self.name, ", ".join(sig)))
        out.append("  tsr_jit::LineGuard tsr_lg;")
        for name, ct in gen.scalar_decl.items():
            out.append("  %s v_%s{%s};" % (ct, name, gen.scalar_init.get(name, "")))
        out.extend("  " + d for d in gen.decls)
        if gen.mix:
            out.append("  bool tsr_pending = false;")
        for p in params:
            if p.kind == "tensor":
                r = len(p.dims)
                dims = ", ".join("d_%s_%d" % (p.name, j) for j in range(r))
                strides = "int64_t{1}" if r == 1 else "d_%s_1, int64_t{1}" % p.name
                out.append('  const auto t_%s = tsr_jit::MakeTensor<%s, %d>(p_%s, {%s}, {%s}, '
                           '"%s");' % (p.name, p.dtype.cxx, r, p.name, dims, strides, p.name))
        # Tiles for the other core type (all of them in a MIX kernel) are optional: that core has
        # no such buffer and never uses them.
        kind = gen.kind
        optional = {"cube": kind != "aic", "vector": kind != "aiv"}
        for side, value in optional.items():
            mark = _OPTIONAL_TILE % side
            body = [ln.replace(mark, "true" if value else "false") for ln in body]
        out.extend(body)
        out.append("}")
        out.append("}  // namespace tsr_jit")
        out.append("")
        entry = ["extern \"C\" __attribute__((visibility(\"default\"))) int tsr_jit_launch("
                 "uint32_t block_dim, void* stream, char* err, size_t err_len%s) {"
                 % "".join(", " + e for e in entry_params)]
        tp = next((p for p in params if p.kind == "tiling"), None)
        if tp is not None:
            entry.append("  tsr_jit::TsrTiling_%s tiling_value;" % tp.layout.name)
            entry.append("  std::memcpy(&tiling_value, a_%s, sizeof(tiling_value));" % tp.name)
        entry += [
            "  tessera::device::LaunchConfig config;",
            "  config.block_dim = block_dim;",
            "  config.type = tessera::device::KernelType::%s;"
            % {"aiv": "kAiv", "aic": "kAic", "mix": "kMix"}[gen.kind],
            "  config.name = \"%s\";" % self.name,
            "  const tessera::device::Stream s = stream != nullptr ? "
            "static_cast<tsrStreamHandle*>(stream)->stream : tessera::device::Stream();",
            "  tessera::Status st = tessera::device::Launch(config, &tsr_jit::kernel_%s, s%s);"
            % (self.name, "".join(", " + c for c in call_args)),
            "  if (st.ok()) return 0;",
            "  std::snprintf(err, err_len, \"%s\", std::string(st.message()).c_str());",
            "  return static_cast<int>(st.code());",
            "}",
            # The same entry with its arguments as an array of pointers to their values: one
            # signature for every kernel, called by the package's C extension (tessera/_fast.cc).
            "extern \"C\" __attribute__((visibility(\"default\"))) int tsr_jit_launch_packed("
            "uint32_t block_dim, void* stream, char* err, size_t err_len, void* const* args) {",
            "  return tsr_jit_launch(block_dim, stream, err, err_len%s);" % "".join(
                ", *static_cast<%s const*>(args[%d])" % (e.rsplit(" ", 1)[0], i)
                for i, e in enumerate(entry_params)),
            "}",
            "extern \"C\" __attribute__((visibility(\"default\"))) uint64_t "
            "tsr_jit_tiling_hash() { return %s; }" % hash_fn,
            "extern \"C\" __attribute__((visibility(\"default\"))) int "
            "tsr_jit_take_failed_line() { return tsr_jit::g_failed_line.exchange(0); }",
            ""]
        return "\n".join(out + entry)

    def _entry(self, key_values, dtype_items):
        spec = (key_values, dtype_items)
        entry = self._entries.get(spec)
        if entry is not None:
            return entry
        with _lock:
            source = self.generate(key_values, dict(dtype_items))
            params = self.params
        tag = self.name
        if self.schema is not None:
            tag += "_tk%x" % self.schema.pack(key_values)
        # Outside the lock: threads compile different kernels in parallel (the cache's file lock
        # keeps two compiles of one object apart).
        compiled = compile_source(source, tag, self.compile_timeout)
        with _lock:
            entry = self._entries.get(spec)
            if entry is not None:
                return entry
            lib = ctypes.CDLL(compiled.path)
            fn = lib.tsr_jit_launch
            argtypes = [ctypes.c_uint32, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
            for p in params:
                if p.kind in ("ptr",):
                    argtypes.append(ctypes.c_void_p)
                elif p.kind == "tensor":
                    argtypes.append(ctypes.c_void_p)
                    argtypes += [ctypes.c_int64] * len(p.dims)
                elif p.kind == "scalar":
                    argtypes.append(_SCALAR_CTYPES[p.dtype.name])
                else:
                    argtypes.append(ctypes.c_char_p)
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
            lib.tsr_jit_tiling_hash.restype = ctypes.c_uint64
            lib.tsr_jit_take_failed_line.restype = ctypes.c_int
            tp = next((p for p in params if p.kind == "tiling"), None)
            if tp is not None and lib.tsr_jit_tiling_hash() != tp.layout.hash:
                raise CompileError("kernel '%s': the compiled TilingData hash 0x%x differs from "
                                   "Python's 0x%x (%s)" % (self.name, lib.tsr_jit_tiling_hash(),
                                                          tp.layout.hash, compiled.path))
            entry = _Entry(fn, params, lib, compiled)
            entry.plan = _fast_plan(lib, entry, params)
            _loaded_libs.append((lib, self))
            self._entries[spec] = entry
            return entry

    # -- launch ---------------------------------------------------------------------------------
    def __getitem__(self, item):
        # k[None, block_dim] and k[block_dim] are the same launcher each time (a stream or a
        # key dict is not cached: the launcher would keep the stream alive).
        plain = type(item) is int or (type(item) is tuple and len(item) == 2 and
                                      item[0] is None and type(item[1]) is int)
        if plain:
            launcher = self._launchers.get(item)
            if launcher is None:
                launcher = self._launcher(item)
                if len(self._launchers) < 256:
                    self._launchers[item] = launcher
            return launcher
        return self._launcher(item)

    def _launcher(self, item):
        if not isinstance(item, tuple):
            return _Launcher(self, None, item, None, None)
        n = len(item)
        if n == 2:
            return _Launcher(self, item[0], item[1], None, None)
        if n == 3:
            if self.schema is not None:
                return _Launcher(self, item[0], item[1], item[2], None)
            return _Launcher(self, item[0], item[1], None, item[2])
        if n == 4:
            return _Launcher(self, item[0], item[1], item[2], item[3])
        if self.schema is not None:
            raise InvalidArgument("Expected kernel[stream, block_dim, tilingkey]")
        raise InvalidArgument("Expected kernel[stream, block_dim] or kernel[block_dim]")

    def __call__(self, *args):
        if self.schema is not None or self.datatype:
            raise InvalidArgument("kernel '%s' has compile-time specialization and cannot be "
                                  "called directly; use bracket-launch syntax" % self.name)
        return _Launcher(self, None, 1, None, None)(*args)

    def compile(self, key=None, datatype=None):
        """Compiles (or loads from the cache) one specialisation ahead of a launch; returns the
        CompiledObject (``.path``, ``.cached``, ``.seconds``)."""
        launcher = _Launcher(self, None, 1, key, datatype)
        return self._entry(launcher.key_values, launcher.dtype_items).compiled

    warmup = compile


class _Launcher:
    __slots__ = ("kernel", "handle", "stream", "block_dim", "key_values", "dtype_items")

    def __init__(self, kernel, stream, block_dim, key, dtype_map):
        self.kernel = kernel
        self.stream = stream
        self.handle = device.stream_handle(stream)
        self.block_dim = block_dim
        if kernel.schema is not None:
            if key is None:
                raise InvalidArgument("kernel '%s' has a TilingKey: launch it as "
                                      "kernel[stream, block_dim, key](...)" % kernel.name)
            self.key_values = kernel.schema.validate_concrete(key)
        else:
            if key is not None:
                raise InvalidArgument("kernel '%s' has no TilingKey; expected kernel[stream, "
                                      "block_dim] or kernel[stream, block_dim, datatypes]"
                                      % kernel.name)
            self.key_values = ()
        self.dtype_items = _dtype_items(kernel, dtype_map)

    def __call__(self, *args):
        k = self.kernel
        bd = self.block_dim
        if isinstance(bd, bool) or not isinstance(bd, int) or bd <= 0:
            raise InvalidArgument("kernel '%s': block_dim must be a positive int, got %r"
                                  % (k.name, bd))
        entry = k._entries.get((self.key_values, self.dtype_items))
        if entry is None:
            entry = k._entry(self.key_values, self.dtype_items)
        if entry.plan is not None and not device._checked:
            status = _capi.fast.launch(entry.plan, bd, self.handle, args, device._pending)
            if status is not None:
                if status:
                    raise _capi.error_for(status, "launch of kernel '%s'" % k.name,
                                          entry.errbuf.value.decode("utf-8", "replace"))
                return
        params = entry.params
        if len(args) != len(params):
            raise InvalidType("kernel '%s': Expected %d args, got %d" % (k.name, len(params),
                                                                        len(args)))
        checked = device._checked
        handle = self.handle
        cargs = [bd, handle, entry.errbuf, 1024]
        staged = []
        copies_back = []
        for i, (p, a) in enumerate(zip(params, args)):
            kind = p.kind
            if kind == "ptr" or kind == "tensor":
                if a is None:
                    if kind == "tensor":
                        raise InvalidType("arg[%d] '%s': expected a tensor, got None"
                                          % (i, p.name))
                    cargs.append(None)
                    continue
                if kind == "ptr" and not checked:
                    ptr, dt = pointer_of(a, "arg[%d] '%s'" % (i, p.name))
                    if dt is not p.dtype and p.dtype is not dtypes.UINT8:
                        raise InvalidType("arg[%d] '%s': dtype mismatch - expected %s, got %s"
                                          % (i, p.name, p.dtype.name, dt.name))
                    cargs.append(ptr)
                    continue
                info = describe(a, "arg[%d] '%s'" % (i, p.name))
                if info.dtype is not p.dtype and not (kind == "ptr" and
                                                      p.dtype is dtypes.UINT8):
                    raise InvalidType("arg[%d] '%s': dtype mismatch - expected %s, got %s"
                                      % (i, p.name, p.dtype.name, info.dtype.name))
                ptr = info.ptr
                if kind == "tensor":
                    _check_tensor(k, i, p, info)
                if checked and not device.is_device_array(info):
                    dev, nbytes = device.stage_in(info, handle)
                    staged.append(dev)
                    copies_back.append((info, dev, nbytes))
                    ptr = dev
                cargs.append(ptr)
                if kind == "tensor":
                    cargs.extend(info.shape)
            elif kind == "scalar":
                cargs.append(_scalar(k, i, p, a))
            else:
                if type(a) is not p.layout.cls:
                    raise InvalidType("arg[%d] '%s': expected a %s TilingData instance, got %s"
                                      % (i, p.name, p.layout.name, type(a).__name__))
                cargs.append(tiling.tiling_instance_to_bytes(a))
        status = entry.fn(*cargs)
        if status != 0:
            for dev in staged:
                _capi.tsrFree(dev)
            raise _capi.error_for(status, "launch of kernel '%s'" % k.name,
                                  entry.errbuf.value.decode("utf-8", "replace"))
        for info, dev, nbytes in copies_back:
            device.stage_out(info, dev, nbytes, handle)
        device.keep_alive(handle, args, staged)


def _check_tensor(k, i, p, info):
    if len(info.shape) != len(p.dims):
        raise InvalidType("arg[%d] '%s': expected rank %d, got shape %s"
                          % (i, p.name, len(p.dims), list(info.shape)))
    for j, (want, got) in enumerate(zip(p.dims, info.shape)):
        if type(want) is int and want != got:
            raise InvalidType("arg[%d] '%s': dim %d must be %d, got %d"
                              % (i, p.name, j, want, got))
    if not info.is_contiguous():
        raise InvalidArgument("arg[%d] '%s': pl.Tensor arguments must be contiguous (shape %s, "
                              "strides %s); pass .contiguous() or use pl.Ptr with make_tensor"
                              % (i, p.name, list(info.shape), list(info.strides)))


def _scalar(k, i, p, a):
    if p.dtype is dtypes.FP32:
        if isinstance(a, bool) or not isinstance(a, (int, float)):
            raise InvalidType("arg[%d] '%s': expected a float, got %r" % (i, p.name, a))
        return float(a)
    if p.dtype is dtypes.BOOL:
        if not isinstance(a, bool):
            raise InvalidType("arg[%d] '%s': expected a bool, got %r" % (i, p.name, a))
        return a
    if isinstance(a, bool) or not isinstance(a, int):
        raise InvalidType("arg[%d] '%s': expected an int, got %r" % (i, p.name, a))
    bits = p.dtype.itemsize * 8
    lo, hi = (0, (1 << bits) - 1) if p.dtype is dtypes.UINT8 else \
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if not lo <= a <= hi:
        raise InvalidVal("arg[%d] '%s': %d does not fit in %s" % (i, p.name, a, p.dtype.name))
    return a


def _dtype_items(kernel, dtype_map):
    if not kernel.datatype:
        if dtype_map is not None:
            raise InvalidArgument("kernel '%s' has no datatype specialization; expected "
                                  "kernel[stream, block_dim]" % kernel.name)
        return ()
    if not isinstance(dtype_map, dict):
        raise InvalidType("kernel '%s': the datatype argument must be a dict {parameter or type "
                          "variable: pl.DT_*}, got %r" % (kernel.name, dtype_map))
    variables = {}
    known = set(kernel.datatype) | set(kernel.datatype.values())
    for k, v in dtype_map.items():
        if k not in known:
            raise InvalidArgument("kernel '%s': '%s' is neither a datatype parameter nor a type "
                                  "variable (%s)" % (kernel.name, k, sorted(known)))
        if not isinstance(v, dtypes.DataType):
            raise InvalidType("kernel '%s': datatype for '%s' must be a pl.DT_* constant, got %r"
                              % (kernel.name, k, v))
        var = kernel.datatype.get(k, k)
        if var in variables and variables[var] is not v:
            raise InvalidVal("kernel '%s': type variable '%s' is given %r and %r"
                             % (kernel.name, var, variables[var], v))
        variables[var] = v
    missing = sorted(set(kernel.datatype.values()) - set(variables))
    if missing:
        raise InvalidArgument("kernel '%s': no datatype given for %s" % (kernel.name, missing))
    return tuple(sorted(variables.items(), key=lambda kv: kv[0]))
