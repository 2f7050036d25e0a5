"""Compares two int32 .bin files element by element; prints `test pass!` or the first mismatch."""
import array
import sys

out, golden = array.array("i"), array.array("i")
with open(sys.argv[1], "rb") as f:
    out.frombytes(f.read())
with open(sys.argv[2], "rb") as f:
    golden.frombytes(f.read())
if len(out) != len(golden):
    print(f"[ERROR] result error: {len(out)} elements, expected {len(golden)}")
    sys.exit(1)
for i, (a, b) in enumerate(zip(out, golden)):
    if a != b:
        print(f"[ERROR] result error at {i}: {a}, expected {b}")
        sys.exit(1)
print("test pass!")
