"""Writes input/input_x.bin (random int32) and output/golden.bin (x * 3 + block index)."""
import array
import os
import random
import sys

scenario = int(sys.argv[1].split("=")[1]) if len(sys.argv) > 1 else 1
n = 1000 * scenario + 3
blocks = 8
per_block = (n + blocks - 1) // blocks
random.seed(n)
x = array.array("i", (random.randint(-10000, 10000) for _ in range(n)))
golden = array.array("i", (v * 3 + i // per_block for i, v in enumerate(x)))
os.makedirs("input", exist_ok=True)
os.makedirs("output", exist_ok=True)
with open("input/input_x.bin", "wb") as f:
    x.tofile(f)
with open("output/golden.bin", "wb") as f:
    golden.tofile(f)
