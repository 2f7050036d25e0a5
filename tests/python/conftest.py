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


import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _compile_kernels_in_parallel():
    """Compiles (or loads) the shared test kernels on all cores before the tests launch them,
    as PyPTO's PARALLEL_COMPILE does; a cold run otherwise compiles them one after another."""
    from concurrent.futures import ThreadPoolExecutor

    import tessera.language as pl
    import cube_kernels
    import kernels
    jobs = [(kernels.add_kernel, {"UseScale": u, "BlockN": b}, None)
            for u, b in ((0, 64), (1, 128), (0, 256), (1, 64))]
    jobs += [(kernels.rows_kernel, None, {"T": pl.DT_FP32}),
             (kernels.rows_kernel, None, {"T": pl.DT_FP16}),
             (kernels.tensor_kernel, None, None), (kernels.overrun_kernel, None, None),
             (kernels.ub_overflow_kernel, None, None),
             (kernels.flow_kernel, None, None)]
    jobs += [(cube_kernels.matmul_tilingkey, {"Dtype": d, "TileBlock": t}, None)
             for d in (0, 1) for t in (0, 1)]
    jobs += [(cube_kernels.matmul_relu_mix, None, None),
             (cube_kernels.l1_overflow_kernel, None, None),
             (cube_kernels.k_mismatch_kernel, None, None)]
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        for f in [pool.submit(k.compile, key, dt) for k, key, dt in jobs]:
            f.result()
    yield
