"""Build script: compiles the Cython core into the one extension ``zebrapack._core``.

Environment switches (all off by default):

- ``ZEBRAPACK_DEBUG=1``: no optimisation, debug symbols, C asserts kept.
- ``ZEBRAPACK_SANITIZE=1``: AddressSanitizer + UndefinedBehaviorSanitizer build
  (docs/robustness.md says how to run the tests under it).
- ``ZEBRAPACK_PROFILE=1``: the release optimisation with debug symbols kept, so that
  perf and callgrind name the core's C functions and lines.
- ``ZEBRAPACK_ANNOTATE=1``: write Cython's HTML annotation next to the sources.
"""

import os

from Cython.Build import cythonize
from setuptools import Extension, setup


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _extension() -> Extension:
    compile_args = ["-std=c11", "-fno-strict-aliasing"]
    link_args = []
    macros = []
    if _flag("ZEBRAPACK_SANITIZE"):
        # float-cast-overflow is not part of "undefined" in gcc; every finding aborts.
        sanitizers = "-fsanitize=address,undefined,float-cast-overflow"
        compile_args += ["-O1", "-g", "-fno-omit-frame-pointer", sanitizers,
                         "-fno-sanitize-recover=all", "-UNDEBUG"]
        link_args += [sanitizers]
    elif _flag("ZEBRAPACK_DEBUG"):
        # -UNDEBUG: Python's own CFLAGS define NDEBUG, which would drop the C asserts.
        compile_args += ["-O0", "-g", "-UNDEBUG"]
    elif _flag("ZEBRAPACK_PROFILE"):
        compile_args += ["-O3", "-g"]
        macros += [("NDEBUG", "1"), ("ZP_OPTIMIZED_BUILD", "1")]
    else:
        # -g0 after Python's own -g, -s at link: the wheel carries no debug info (2.5 MB -> ~0.4 MB).
        compile_args += ["-O3", "-g0"]
        link_args += ["-s"]
        macros += [("NDEBUG", "1"), ("ZP_OPTIMIZED_BUILD", "1")]
    return Extension(
        "zebrapack._core",
        sources=["cython/_core.pyx"],
        include_dirs=["cython"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=macros,
    )


setup(
    ext_modules=cythonize(
        [_extension()],
        include_path=["cython"],
        annotate=_flag("ZEBRAPACK_ANNOTATE"),
        compiler_directives={
            "language_level": 3,
            "embedsignature": True,
            "always_allow_keywords": False,
        },
    ),
)
