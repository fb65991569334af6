"""Schemas written as Go source in a test module, compiled as ``zebrapack.schema_from_go``
compiles a file (it reads a path: the text goes to a temporary one first)."""

from __future__ import annotations

from pathlib import Path

import pytest

import zebrapack


def schema_from_go_text(tmp_path_factory: pytest.TempPathFactory, text: str, name: str) -> zebrapack.Schema:
    """The schema of Go source ``text`` (a package of zid-tagged structs), via ``name``.go."""
    path = Path(tmp_path_factory.mktemp(name)) / f"{name}.go"
    path.write_text(text)
    return zebrapack.schema_from_go(path)
