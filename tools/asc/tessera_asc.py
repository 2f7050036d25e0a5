"""tessera-asc: the compiler driver behind CMake's ASC language (Ascend C `.asc` sources).

Compiling (`-c SRC -o OBJ`): rewrites the `<<<>>>` launches of SRC (asc_rewrite), then runs the
C++ compiler on the result as C++17 with tessera's compat include paths; `#line` keeps every
diagnostic on SRC's lines, `-iquote` keeps SRC's own directory first for `#include "..."`.
`--npu-arch=dav-NNNN` defines `__NPU_ARCH__=NNNN` (2201 by default). Vendor-only flags
(`--cce-*`, `--gcc-toolchain=`) are accepted and ignored.
Linking (no `-c`): runs the C++ compiler with tessera's libraries; the vendor's runtime libraries
(`-lascendcl`, `-ltiling_api`, ...) are tessera's, so they are dropped.

The configuration (compiler, include directories, libraries) is the JSON file the tessera build
writes next to this script (TESSERA_ASC_CONFIG overrides its path).
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import asc_rewrite  # noqa: E402

# Libraries of the vendor toolkit whose names the samples link; tessera provides what they hold.
VENDOR_LIBRARIES = {
    "ascendcl", "acl_rt", "runtime", "tiling_api", "register", "platform", "unified_dlog",
    "graph_base", "graph", "ge_runner", "nnopbase", "opapi", "c_sec", "ascend_dump", "ascendalog",
    "error_manager", "exe_graph", "tikicpulib_ascend910B1", "tikicpulib_ascend910B2", "ascendc_runtime",
    "profapi", "mmpa", "acl_op_compiler", "cust_opapi", "ascend_hal",
}

SYSTEM_INCLUDE_DIRS = {"/usr/include", "/usr/local/include"}


def _is_system_dir(path):
    """True for a compiler default include folder, however spelt (/usr/lib/../include, /usr/include/)."""
    return bool(path) and os.path.normpath(path) in SYSTEM_INCLUDE_DIRS


def _config():
    """The configuration; relative paths in it (an installed tree's) are relative to its folder."""
    path = os.environ.get("TESSERA_ASC_CONFIG") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "tessera_asc_config.json")
    with open(path, encoding="utf-8") as f:
        cfg = json.load(f)
    base = os.path.dirname(os.path.abspath(path))

    def resolve(p):
        return p if p.startswith("-") or os.path.isabs(p) else os.path.normpath(os.path.join(base, p))

    for key in ("include_dirs", "libraries", "rpath"):
        cfg[key] = [resolve(p) for p in cfg.get(key, [])]
    return cfg


def _arch_define(value):
    digits = value.rsplit("-", 1)[-1]
    if not digits.isdigit():
        raise SystemExit(f"tessera-asc: --npu-arch expects dav-<number> (e.g. dav-2201), got '{value}'")
    return f"-D__NPU_ARCH__={digits}"


def _split_args(argv):
    """Returns (args for the C++ compiler, source, object, compiling, arch define)."""
    out = []
    source = None
    obj = None
    compiling = False
    arch = "-D__NPU_ARCH__=2201"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-isystem", "-I") and i + 1 < len(argv) and _is_system_dir(argv[i + 1]):
            i += 2  # re-adding a default directory breaks libstdc++'s #include_next
            continue
        if (a.startswith("-I") and _is_system_dir(a[2:])) or (
                a.startswith("-isystem") and len(a) > 8 and _is_system_dir(a[8:])):
            i += 1
            continue
        if a.startswith("--npu-arch="):
            arch = _arch_define(a.split("=", 1)[1])
        elif a == "--npu-arch" and i + 1 < len(argv):
            i += 1
            arch = _arch_define(argv[i])
        elif (a.startswith("--cce-") or a.startswith("--gcc-toolchain") or a.startswith("--npu-soc")
              or a == "--sanitizer"):
            pass  # --sanitizer: checked mode is chosen at run time (mssanitizer, TESSERA_CHECK=1)
        elif a == "-c":
            compiling = True
        elif a == "-o" and i + 1 < len(argv):
            i += 1
            obj = argv[i]
        elif a.startswith("-l") and a[2:] in VENDOR_LIBRARIES:
            pass
        elif a.endswith(".asc") and not a.startswith("-"):
            source = a
        else:
            out.append(a)
        i += 1
    return out, source, obj, compiling, arch


def compile_source(cfg, args, source, obj, arch):
    with open(source, encoding="utf-8") as f:
        text = f.read()
    try:
        new_text, _ = asc_rewrite.rewrite(source, text)
    except asc_rewrite.RewriteError as e:
        print(f"tessera-asc: error: {e}", file=sys.stderr)
        return 1
    src_abs = os.path.abspath(source)
    out_dir = os.path.dirname(os.path.abspath(obj)) if obj else tempfile.gettempdir()
    rewritten = os.path.join(out_dir, os.path.basename(obj or source) + ".rewritten.cc")
    escaped = src_abs.replace("\\", "\\\\").replace('"', '\\"')
    with open(rewritten, "w", encoding="utf-8") as f:
        f.write(f'#line 1 "{escaped}"\n{new_text}')
    std = [] if any(a.startswith("-std=") for a in args) else ["-std=c++17"]
    cmd = [cfg["cxx"], "-x", "c++", *std, arch, "-iquote", os.path.dirname(src_abs)]
    cmd += [f"-I{d}" for d in cfg["include_dirs"]]
    cmd += [f"-D{d}" for d in cfg.get("definitions", [])]
    cmd += ["-include", "tessera/compat/asc_launch.h", *args, "-c", rewritten]
    if obj:
        cmd += ["-o", obj]
    return subprocess.call(cmd)


def link(cfg, args, obj):
    cmd = [cfg["cxx"], *args]
    if obj:
        cmd += ["-o", obj]
    cmd += cfg["libraries"]
    cmd += [f"-Wl,-rpath,{d}" for d in cfg.get("rpath", [])]
    return subprocess.call(cmd)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv[0] == "--version":
        print("tessera-asc 1.0 (Ascend C sources on tessera)")
        return 0
    cfg = _config()
    args, source, obj, compiling, arch = _split_args(argv)
    if compiling:
        if source is None:
            print("tessera-asc: error: -c needs a .asc source", file=sys.stderr)
            return 1
        return compile_source(cfg, args, source, obj, arch)
    if source is not None:
        print("tessera-asc: error: compile .asc sources with -c, then link the objects", file=sys.stderr)
        return 1
    return link(cfg, args, obj)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
