"""`tessera run --save DIR` as a numpy user reads it: np.load gives every input and output with
its dtype and shape, and the output equals what the op computes (package reference_ops, RefSum:
y = x1 * 2 + x2, rounded once to the dtype) for float32, float16, bfloat16 ('<u2' bits) and
int32 at shapes 1, 7, 4097 and 3x5.

usage: run_save_npy_test.py TESSERA_CLI REFERENCE_PACKAGE_DIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x):
    """Round-to-nearest-even float32 -> bfloat16 bits (finite inputs)."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def expected(dtype, x1, x2):
    if dtype == "int32":
        return (x1.astype(np.int64) * 2 + x2).astype(np.int32)
    if dtype == "bfloat16":
        return f32_to_bf16(bf16_to_f32(x1) * np.float32(2) + bf16_to_f32(x2))
    return (x1.astype(np.float32) * np.float32(2) + x2.astype(np.float32)).astype(x1.dtype)


def main():
    cli, package = sys.argv[1], sys.argv[2]
    env = dict(os.environ, TESSERA_CUSTOM_OPP_PATH=package)
    env.pop("TESSERA_OPP_PATH", None)
    npy_dtype = {"float32": "<f4", "float16": "<f2", "bfloat16": "<u2", "int32": "<i4"}
    failures = 0
    for dtype, code in npy_dtype.items():
        for shape in [(1,), (7,), (4097,), (3, 5)]:
            with tempfile.TemporaryDirectory() as out:
                text = ",".join(str(d) for d in shape)
                cmd = [cli, "run", "RefSum", "--shape", text, "--shape", text, "--dtype", dtype,
                       "--iters", "1", "--save", out]
                subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
                x1 = np.load(os.path.join(out, "input0_x1.npy"))
                x2 = np.load(os.path.join(out, "input1_x2.npy"))
                y = np.load(os.path.join(out, "output0_y.npy"))
                for name, a in (("x1", x1), ("x2", x2), ("y", y)):
                    if a.dtype != np.dtype(code) or a.shape != shape:
                        print(f"{dtype} {shape} {name}: dtype {a.dtype.str} shape {a.shape}")
                        failures += 1
                want = expected(dtype, x1, x2)
                if not np.array_equal(y, want):
                    bad = np.flatnonzero(y.ravel() != want.ravel())
                    print(f"{dtype} {shape}: {bad.size} elements differ, first {bad[0]}: "
                          f"got {y.ravel()[bad[0]]}, want {want.ravel()[bad[0]]}")
                    failures += 1
                if not np.any(x2):
                    print(f"{dtype} {shape}: x2 is all zero; the check would prove nothing")
                    failures += 1
    if failures:
        sys.exit(1)
    print("all saved tensors load with numpy and hold what RefSum computed")


if __name__ == "__main__":
    main()
