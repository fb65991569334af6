"""Build script: compiles the Cython core into the one extension ``zebrapack._core``.

The flags are chosen for the compiler setuptools picks: GCC and clang (Linux, macOS,
MinGW) take the same ones, MSVC (Windows) its own.

Environment switches (all off by default):

- ``ZEBRAPACK_DEBUG=1``: no optimisation, debug symbols, C asserts kept.
- ``ZEBRAPACK_SANITIZE=1``: AddressSanitizer + UndefinedBehaviorSanitizer build, GCC or
  clang only (docs/sanitizers-and-fuzzing.md says how to run the tests under it).
- ``ZEBRAPACK_PROFILE=1``: the release optimisation with debug symbols kept, so that
  perf and callgrind name the core's C functions and lines.
- ``ZEBRAPACK_WERROR=1``: every warning is an error (``-Wall -Wextra -Werror``; MSVC ``/W3 /WX``): CI
  builds the core so with gcc and with clang.
- ``ZEBRAPACK_ANNOTATE=1``: write Cython's HTML annotation next to the sources.
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


class Flags(NamedTuple):
    compile: list[str]
    link: list[str]
    macros: list[tuple[str, str]]


RELEASE_MACROS = [("NDEBUG", "1"), ("ZP_OPTIMIZED_BUILD", "1")]
#: Every function starts on a 32-byte boundary (gcc's default is 16). The core is one
#: object: a change in the encoder moves every decoder function after it, and with
#: 16-byte starts that moved the decoder's branches across the CPU's 32-byte fetch
#: windows: the same decoder took 0.89x and 1.04x msgspec's time for a small record
#: (docs/performance-log.md, the eighteenth round). With 32-byte starts a function's
#: code keeps its place within those windows whatever comes before it.
ALIGN_FUNCTIONS = "-falign-functions=32"


def gcc_flags() -> Flags:
    """GCC and clang, wherever they run."""
    compile_args = ["-std=c11", "-fno-strict-aliasing"]
    link_args: list[str] = []
    macros: list[tuple[str, str]] = []
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
        compile_args += ["-O3", ALIGN_FUNCTIONS, "-g"]
        macros += RELEASE_MACROS
    else:
        # -g0 after Python's own -g, and the symbol table stripped at link: the wheel
        # carries no debug info (2.5 MB -> ~0.4 MB). Apple's ld calls -s obsolete; its
        # -x drops the local symbols.
        compile_args += ["-O3", ALIGN_FUNCTIONS, "-g0"]
        link_args += ["-Wl,-x"] if sys.platform == "darwin" else ["-s"]
        macros += RELEASE_MACROS
    if _flag("ZEBRAPACK_WERROR"):
        compile_args += ["-Wall", "-Wextra", "-Werror"]
    return Flags(compile_args, link_args, macros)


def msvc_flags() -> Flags:
    """MSVC: Python's own options already optimise (/O2) and keep no debug information."""
    if _flag("ZEBRAPACK_SANITIZE"):
        raise SystemExit("ZEBRAPACK_SANITIZE=1 needs GCC or clang (UndefinedBehaviorSanitizer)")
    compile_args: list[str] = []
    link_args: list[str] = []
    macros: list[tuple[str, str]] = []
    if _flag("ZEBRAPACK_DEBUG"):
        compile_args += ["/Od", "/Zi", "/UNDEBUG"]
        link_args += ["/DEBUG"]
    elif _flag("ZEBRAPACK_PROFILE"):
        compile_args += ["/Zi"]
        link_args += ["/DEBUG"]
        macros += RELEASE_MACROS
    else:
        macros += RELEASE_MACROS
    if _flag("ZEBRAPACK_WERROR"):
        compile_args += ["/W3", "/WX"]
    return Flags(compile_args, link_args, macros)


class BuildCore(build_ext):
    """build_ext with the flags of the compiler it was given."""

    def build_extensions(self) -> None:
        flags = msvc_flags() if self.compiler.compiler_type == "msvc" else gcc_flags()
        for extension in self.extensions:
            extension.extra_compile_args = flags.compile
            extension.extra_link_args = flags.link
            extension.define_macros = [*extension.define_macros, *flags.macros]
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildCore},
    ext_modules=cythonize(
        [Extension("zebrapack._core", sources=["cython/_core.pyx"], include_dirs=["cython"])],
        include_path=["cython"],
        annotate=_flag("ZEBRAPACK_ANNOTATE"),
        compiler_directives={
            "language_level": 3,
            "embedsignature": True,
            "always_allow_keywords": False,
        },
    ),
)
