"""Where this package finds tessera's libraries, headers and compiler.

The CMake build writes ``tessera_python.json`` into its build directory. It is looked up in
``$TESSERA_BUILD_DIR`` when set, else in ``<source>/build`` (the README's build directory, next to
this package's ``python/`` folder).
"""
import json
import os

from .errors import TesseraError

_CONFIG = None


def build_dir():
    env = os.environ.get("TESSERA_BUILD_DIR")
    if env:
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "build"))


def config():
    global _CONFIG
    if _CONFIG is None:
        path = os.path.join(build_dir(), "tessera_python.json")
        try:
            with open(path, "r", encoding="utf-8") as f:
                _CONFIG = json.load(f)
        except FileNotFoundError:
            raise TesseraError(
                "tessera: %s not found; build tessera first (cmake -S . -B build && cmake --build "
                "build) or set TESSERA_BUILD_DIR to the build directory" % path) from None
    return _CONFIG
