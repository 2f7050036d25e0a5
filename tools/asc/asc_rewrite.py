"""Rewrites Ascend C kernel launches `kernel<<<blockDim, l2ctrl, stream>>>(args)` into C++.

The source is lexed by libclang (python3-clang), so comments, string and character literals,
raw strings and preprocessor lines are real tokens and never mistaken for a launch. A launch is
the token sequence `<<` `<` (adjacent) ... `>>` `>` (adjacent, outside any bracket) `(` ... `)`;
the kernel expression before it is an id-expression, optionally qualified and with template
arguments (balanced `<>`, `()`, `[]`), or a parenthesised expression. Each launch becomes

    ::tessera::compat::AscLaunch(KIND, KERNEL, "KERNEL", blockDim, l2ctrl, stream)(args)

where KIND is decided for each kernel defined with `__global__` in the same file, as the vendor's
toolchain decides it: a kind attribute on the declaration first (`__cube__` -> AIC, `__vector__`
-> AIV, `__mix__(a, b)` -> MIX); else `KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_...)` in its body
(AIV_ONLY / MIX_AIV_1_0 -> AIV, AIC_ONLY / MIX_AIC_1_0 -> AIC, MIX_AIC_1_1 / MIX_AIC_1_2 -> MIX);
else a `__kfc_workspace__` parameter -> MIX (that workspace is the AIC<->AIV message area of a
Matmul object in MIX mode, so the kernel runs as 1 AIC + 2 AIV groups); otherwise AIV.
A launch through a name that is no kernel of the file (a function pointer chosen at run time)
takes the kind all the file's kernels share, AIV when they differ or there are none.
Replacements keep every newline, so line numbers of the rewritten text match the original.
"""

import clang.cindex as ci

_KIND_AIV = "::tessera::device::KernelType::kAiv"
_KIND_AIC = "::tessera::device::KernelType::kAic"
_KIND_MIX = "::tessera::device::KernelType::kMix"

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


class RewriteError(Exception):
    """A launch the rewriter cannot take apart; the message names file, line and what is wrong."""


def _tokens(path, text):
    index = ci.Index.create()
    tu = index.parse(
        path,
        args=["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++"],
        unsaved_files=[(path, text)],
        options=ci.TranslationUnit.PARSE_INCOMPLETE | ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES,
    )
    data = text.encode("utf-8")
    end = ci.SourceLocation.from_offset(tu, tu.get_file(path), len(data))
    start = ci.SourceLocation.from_offset(tu, tu.get_file(path), 0)
    extent = ci.SourceRange.from_locations(start, end)
    out = []
    for tok in tu.get_tokens(extent=extent):
        if tok.kind == ci.TokenKind.COMMENT:
            continue
        out.append((tok.spelling, tok.extent.start.offset, tok.extent.end.offset, tok.kind))
    return data, out


def _adjacent(toks, i, first, second):
    return (
        i + 1 < len(toks)
        and toks[i][0] == first
        and toks[i + 1][0] == second
        and toks[i][2] == toks[i + 1][1]
    )


def _kernel_kinds(toks):
    """Maps each kernel name declared with __global__ in this file to its launch kind."""
    kinds = {}
    for i, tok in enumerate(toks):
        if tok[0] != "__global__":
            continue
        lo = i
        while lo > 0 and toks[lo - 1][0] not in (";", "}", "{", ">", "#"):
            lo -= 1
        hi = i
        while hi < len(toks) and toks[hi][0] not in ("(", ";", "{"):
            if toks[hi][0] == "__mix__" and hi + 1 < len(toks) and toks[hi + 1][0] == "(":
                hi = _match_forward(toks, hi + 1) + 1
                continue
            hi += 1
        if hi >= len(toks) or toks[hi][0] != "(" or hi == 0:
            continue
        name = toks[hi - 1][0]
        words = {t[0] for t in toks[lo:hi]}
        rparen = _match_forward(toks, hi)
        params = {t[0] for t in toks[hi:rparen]} if rparen > 0 else set()
        if "__mix__" in words:
            kind = _KIND_MIX
        elif "__cube__" in words:
            kind = _KIND_AIC
        elif "__vector__" in words:
            kind = _KIND_AIV
        else:
            kind = _task_type_default(toks, rparen)
            if kind is None:
                kind = _KIND_MIX if "__kfc_workspace__" in params else _KIND_AIV
        if rparen < 0 or name in kinds and not _has_body(toks, rparen):
            kinds.setdefault(name, kind)
        else:
            kinds[name] = kind
    return kinds


_TASK_TYPES = {
    "KERNEL_TYPE_AIV_ONLY": _KIND_AIV,
    "KERNEL_TYPE_MIX_AIV_1_0": _KIND_AIV,
    "KERNEL_TYPE_AIC_ONLY": _KIND_AIC,
    "KERNEL_TYPE_MIX_AIC_1_0": _KIND_AIC,
    "KERNEL_TYPE_MIX_AIC_1_1": _KIND_MIX,
    "KERNEL_TYPE_MIX_AIC_1_2": _KIND_MIX,
}


def _body_range(toks, rparen):
    """(first, last) token indices of the body `{...}` after a parameter list, or None."""
    j = rparen + 1
    while j < len(toks) and toks[j][0] not in ("{", ";", "(", ")", "}"):
        j += 1
    if j >= len(toks) or toks[j][0] != "{":
        return None
    end = _match_forward(toks, j)
    return (j, end) if end > 0 else None


def _has_body(toks, rparen):
    return _body_range(toks, rparen) is not None


def _task_type_default(toks, rparen):
    """The kind named by KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_...) in the kernel's body, if any."""
    body = _body_range(toks, rparen) if rparen > 0 else None
    if body is None:
        return None
    for j in range(body[0], body[1] - 2):
        if toks[j][0] == "KERNEL_TASK_TYPE_DEFAULT" and toks[j + 1][0] == "(":
            return _TASK_TYPES.get(toks[j + 2][0])
    return None


def _match_forward(toks, i):
    """Index of the bracket closing the one at toks[i]."""
    stack = []
    for j in range(i, len(toks)):
        s = toks[j][0]
        if s in _OPEN:
            stack.append(_OPEN[s])
        elif s in _CLOSE:
            if not stack or stack.pop() != s:
                return -1
            if not stack:
                return j
    return -1


def _callee_start(toks, i):
    """Index of the first token of the kernel expression that ends at toks[i - 1]."""
    j = i - 1
    if j < 0:
        return -1
    if toks[j][0] == ")":
        depth = 0
        while j >= 0:
            s = toks[j][0]
            if s in _CLOSE:
                depth += 1
            elif s in _OPEN:
                depth -= 1
                if depth == 0:
                    return j
            j -= 1
        return -1
    while True:
        if toks[j][0] in (">", ">>"):
            angle = 0
            paren = 0
            while j >= 0:
                s = toks[j][0]
                if s in (")", "]", "}"):
                    paren += 1
                elif s in ("(", "[", "{"):
                    paren -= 1
                elif paren == 0 and s == ">":
                    angle += 1
                elif paren == 0 and s == ">>":
                    angle += 2
                elif paren == 0 and s == "<":
                    angle -= 1
                elif paren == 0 and s == "<<":
                    angle -= 2
                if angle == 0 and paren == 0:
                    break
                j -= 1
            j -= 1
            if j < 0:
                return -1
        if toks[j][3] != ci.TokenKind.IDENTIFIER and toks[j][0] != "operator":
            return -1
        if j >= 1 and toks[j - 1][0] == "template":
            j -= 1
        if j >= 1 and toks[j - 1][0] == "::":
            j -= 1
            if j >= 1 and (toks[j - 1][3] == ci.TokenKind.IDENTIFIER or toks[j - 1][0] in (">", ">>")):
                j -= 1
                continue
            return j
        if j >= 1 and toks[j - 1][0] in (".", "->"):
            return -1
        return j


def _split_top_level(toks, lo, hi):
    """Splits toks[lo:hi] at commas outside brackets; returns (start, end) index pairs."""
    parts = []
    depth = 0
    start = lo
    for j in range(lo, hi):
        s = toks[j][0]
        if s in _OPEN:
            depth += 1
        elif s in _CLOSE:
            depth -= 1
        elif s == "," and depth == 0:
            parts.append((start, j))
            start = j + 1
    parts.append((start, hi))
    return parts


def _line_of(data, offset):
    return data.count(b"\n", 0, offset) + 1


def _text(data, toks, lo, hi):
    """Source text from toks[lo] to the end of toks[hi - 1]."""
    return data[toks[lo][1] : toks[hi - 1][2]].decode("utf-8")


def rewrite(path, text):
    """Returns (new_text, launches) for the source `text` of `path`; raises RewriteError."""
    data, toks = _tokens(path, text)
    kinds = _kernel_kinds(toks)
    shared = set(kinds.values())
    fallback = shared.pop() if len(shared) == 1 else _KIND_AIV
    edits = []
    i = 0
    while i < len(toks):
        if not _adjacent(toks, i, "<<", "<"):
            i += 1
            continue
        line = _line_of(data, toks[i][1])
        begin = _callee_start(toks, i)
        if begin < 0:
            raise RewriteError(f"{path}:{line}: `<<<` without a kernel name before it")
        depth = 0
        close = -1
        for j in range(i + 2, len(toks)):
            s = toks[j][0]
            if s in _OPEN:
                depth += 1
            elif s in _CLOSE:
                depth -= 1
                if depth < 0:
                    break
            elif depth == 0 and _adjacent(toks, j, ">>", ">"):
                close = j
                break
            elif depth == 0 and s == ";":
                break
        if close < 0:
            raise RewriteError(f"{path}:{line}: `<<<` without a matching `>>>`")
        config = _split_top_level(toks, i + 2, close)
        if len(config) not in (2, 3) or any(a == b for a, b in config):
            raise RewriteError(
                f"{path}:{line}: a launch configuration is <<<blockDim, l2ctrl, stream>>>, "
                f"got {len(config)} argument(s)"
            )
        lparen = close + 2
        if lparen >= len(toks) or toks[lparen][0] != "(":
            raise RewriteError(f"{path}:{line}: `>>>` must be followed by the kernel's arguments `(...)`")
        rparen = _match_forward(toks, lparen)
        if rparen < 0:
            raise RewriteError(f"{path}:{line}: the kernel's argument list is not closed")
        callee = _text(data, toks, begin, i)
        name = callee
        base = toks[i - 1][0]
        for j in range(begin, i):
            if toks[j][3] == ci.TokenKind.IDENTIFIER:
                base = toks[j][0]
            if toks[j][0] == "<":
                break
        kind = kinds.get(base, fallback)
        args = ", ".join(_text(data, toks, a, b) for a, b in config)
        inner = data[toks[lparen][2] : toks[rparen][1]].decode("utf-8")
        name_literal = name.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
        new = f'::tessera::compat::AscLaunch({kind}, {callee}, "{name_literal}", {args})({inner})'
        old = data[toks[begin][1] : toks[rparen][2]]
        new += "\n" * (old.count(b"\n") - new.count("\n"))
        edits.append((toks[begin][1], toks[rparen][2], new.encode("utf-8"), line))
        i = rparen + 1
    out = bytearray()
    pos = 0
    for start, end, new, _ in edits:
        out += data[pos:start] + new
        pos = end
    out += data[pos:]
    return out.decode("utf-8"), [e[3] for e in edits]
