"""pytest setup: the package from this checkout, the build tree's libraries, and a JIT cache
shared by every test process of one run (compiled kernels are reused across tests)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "python"))
sys.path.insert(0, HERE)
if not os.environ.get("TESSERA_JIT_CACHE_DIR"):
    build = os.environ.get("TESSERA_BUILD_DIR") or os.path.join(SOURCE, "build")
    os.environ["TESSERA_JIT_CACHE_DIR"] = os.path.join(build, "python_jit_cache")
