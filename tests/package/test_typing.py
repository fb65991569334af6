"""What a type checker sees: ``decode`` and friends return the class asked for, a
generated module's ``schema`` returns its own classes, and the package itself
passes ``mypy --strict``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import PACKAGE_ROOT, SCHEMAS, cli_env

import zebrapack
from zebrapack.codegen import generate_module

# User code: each reveal_type line ends in a comment giving the type mypy must reveal.
USER_CODE = '''\
import asyncio
from dataclasses import dataclass
from pathlib import Path

import zebrapack
import zp_models
from zp_models import A, Tree

schema = zebrapack.load("zp.z")
data = b""
reveal_type(schema.decode(data))                                  # Any
reveal_type(schema.decode(data, type=A))                          # zp_models.A
reveal_type(schema.decode(data, A))                               # zp_models.A
reveal_type(schema.decode(data, type="A"))                        # Any
reveal_type(schema.decode_all(data, type=Tree))                   # list[zp_models.Tree]
reveal_type(schema.iter_decode(data, type=A))                     # typing.Iterator[zp_models.A]
reveal_type(schema.iter_decode(Path("a.zpk"), type=A))            # typing.Iterator[zp_models.A]
with zebrapack.open_stream("a.zpk", type=A) as stream:
    reveal_type(stream)                                           # zebrapack.streams.self_describing.SchemaStream[zp_models.A]
    for record in stream:
        reveal_type(record)                                       # zp_models.A
with zebrapack.open_stream("a.zpk") as untyped:
    reveal_type(next(iter(untyped)))                              # Any

generated = zp_models.schema
reveal_type(generated.decode(data))                               # zp_models.A | zp_models.Compound | zp_models.Inner | zp_models.Prims | zp_models.Tree
reveal_type(generated.decode(data, type=Tree))                    # zp_models.Tree
reveal_type(generated.decode_all(data))                           # list[zp_models.A | zp_models.Compound | zp_models.Inner | zp_models.Prims | zp_models.Tree]
reveal_type(next(generated.iter_decode(data, A)))                 # zp_models.A
reveal_type(schema.stream_decoder(A))                             # zebrapack._core.StreamDecoder[zp_models.A]
reveal_type(next(schema.stream_decoder()))                        # Any
reveal_type(next(generated.stream_decoder()))                     # zp_models.A | zp_models.Compound | zp_models.Inner | zp_models.Prims | zp_models.Tree
reveal_type(generated.aiter_decode(asyncio.StreamReader(), Tree))  # typing.AsyncIterator[zp_models.Tree]
reveal_type(next(zebrapack.schema_stream_decoder(type=A)))        # zp_models.A

def annotated(s: zebrapack.Schema, stream: zebrapack.SchemaStream) -> None:   # bare: [Any]
    reveal_type(s.decode(data))                                   # Any
    reveal_type(next(iter(stream)))                               # Any

@dataclass(slots=True)
class Mine(zebrapack.Record):
    X: int = 0

@dataclass(slots=True, frozen=True)
class Fixed(zebrapack.FrozenRecord):
    X: int = 0

mine_schema = zebrapack.schema_from_dataclasses(Mine, Fixed, package="p")
reveal_type(mine_schema.decode(data, type=Mine))                  # user.Mine
reveal_type(Fixed(X=1).X)                                         # int
mine = Mine(X=1)
mine.X = 2
mine.X = "two"                                                    # error: assignment
mine.Y = 1                                                        # error: attr-defined
Fixed(X=1).X = 2                                                  # error: misc

a = generated.decode(data, type=A)
a.Name + 1                                                        # error: operator
'''
# The lines marked so must fail: a field's type, a field that does not exist (the
# record bases declare no __setattr__ that would let any name through), a frozen
# field, and Name is a str.
EXPECTED_ERRORS = [(number, line.rsplit("# error: ", 1)[1].strip())
                   for number, line in enumerate(USER_CODE.splitlines(), 1) if "# error: " in line]


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    directory = tmp_path_factory.mktemp("typing")
    (directory / "zp_models.py").write_text(generate_module(zebrapack.load(SCHEMAS / "zp.z").model))
    (directory / "user.py").write_text(USER_CODE)
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", ".mypy_cache",
                             "--no-error-summary", "user.py"],
                            cwd=directory, capture_output=True, text=True, env=cli_env(), timeout=300, check=False)
    assert result.stderr == "", result.stderr
    return result.stdout.splitlines()


def test_mypy_reveals_the_class_given_as_type_and_the_generated_union(mypy_output: list[str]) -> None:
    expected = {number: line.rsplit("# ", 1)[1].strip()
                for number, line in enumerate(USER_CODE.splitlines(), 1) if "reveal_type(" in line}
    revealed = {}
    for line in mypy_output:
        match = re.match(r'user\.py:(\d+): note: Revealed type is "(.*)"$', line)
        if match:
            revealed[int(match.group(1))] = match.group(2)
    assert revealed == expected


def test_mypy_rejects_misuse_of_a_decoded_record(mypy_output: list[str]) -> None:
    errors = [re.match(r"user\.py:(\d+): error: .*\[([a-z-]+)\]$", line) for line in mypy_output
              if ": error: " in line]
    assert [(int(m.group(1)), m.group(2)) for m in errors if m] == EXPECTED_ERRORS
    assert len(errors) == len(EXPECTED_ERRORS), mypy_output


def test_the_package_passes_mypy_strict(tmp_path: Path) -> None:
    package = PACKAGE_ROOT / "zebrapack"
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                             "--config-file", str(Path(__file__).parent.parent.parent / "pyproject.toml"),
                             "-p", "zebrapack"],
                            cwd=package.parent, capture_output=True, text=True, env=cli_env(), timeout=600,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
