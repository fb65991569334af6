"""The schema shipped in zebrapack.examples is the reference vectors' zp schema (the
package cannot ship tests, so it carries a copy): the copy must not drift."""

from pathlib import Path

import pytest

import zebrapack.examples

VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "schemas"
SHIPPED = Path(zebrapack.examples.SCHEMA).parent


@pytest.mark.parametrize("name", ["zp.go", "zp.z", "zp.z.json"])
def test_the_shipped_example_schema_is_the_vectors_zp_schema(name: str) -> None:
    assert (SHIPPED / name).read_bytes() == (VECTORS / name).read_bytes()
