"""tessera-asc's argument handling: default include folders dropped however spelt, vendor flags
and libraries dropped, --npu-arch mapped onto __NPU_ARCH__."""
import pytest

import tessera_asc


@pytest.mark.parametrize("args", [
    ["-isystem", "/usr/include"],
    ["-isystem", "/usr/lib/../include"],
    ["-isystem/usr/lib/../include"],
    ["-I/usr/include/"],
    ["-I", "/usr/local/include"],
])
def test_default_include_folders_are_dropped(args):
    out, source, _, compiling, _ = tessera_asc._split_args(args + ["-c", "k.asc", "-o", "k.o"])
    assert out == []
    assert source == "k.asc" and compiling


def test_other_include_folders_stay():
    out, *_ = tessera_asc._split_args(["-isystem", "/usr/include/python3.11", "-I/opt/x/../y", "-c",
                                       "k.asc"])
    assert out == ["-isystem", "/usr/include/python3.11", "-I/opt/x/../y"]


def test_vendor_flags_and_libraries_are_dropped():
    out, _, obj, compiling, arch = tessera_asc._split_args(
        ["--npu-arch=dav-3510", "--cce-aicore-only", "--gcc-toolchain=/usr", "--sanitizer", "-lascendcl",
         "-ltiling_api", "-lm", "a.o", "-o", "demo"])
    assert out == ["-lm", "a.o"] and obj == "demo" and not compiling
    assert arch == "-D__NPU_ARCH__=3510"


def test_bad_arch_is_refused():
    with pytest.raises(SystemExit, match="dav-<number>"):
        tessera_asc._split_args(["--npu-arch=ascend910b", "-c", "k.asc"])
