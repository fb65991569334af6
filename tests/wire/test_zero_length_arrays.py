"""A ``[0]T`` array is empty (the reference's emptiness test is ``len(x) == 0``):
zebrapack mode leaves it out as it leaves out any empty field, ``omitempty`` does in
msgp mode; a ``[N]T`` of zeros with N > 0 is never empty. The encoder and the Arrow
writer agree."""

from __future__ import annotations

import io

import pytest

import zebrapack
from zebrapack.sources.from_go import compile_go_schema

SOURCE = """package p
type T struct {
\tZ  [0]int  `zid:"0"`
\tB  [0]byte `zid:"1"`
\tA  [2]int  `zid:"2"`
\tO  [0]int  `zid:"3" msg:",omitempty"`
}
"""
SCHEMA = zebrapack.Schema(compile_go_schema(SOURCE))
#: zebrapack mode: only A (zid 2), its two zeros.
ZEBRAPACK = "82ffa15402920000"
#: msgp mode: every field but the omitempty [0]int.
MSGP = "83a15a90a142c400a141920000"


@pytest.mark.parametrize(("mode", "wire"), [("zebrapack", ZEBRAPACK), ("msgp", MSGP)])
def test_a_zero_length_array_is_empty(mode: str, wire: str) -> None:
    value = SCHEMA.types.T()
    assert (value.Z, value.B, value.A, value.O) == ([], b"", [0, 0], [])
    assert SCHEMA.encode(value, mode=mode).hex() == wire
    assert SCHEMA.decode(bytes.fromhex(wire), "T") == value


@pytest.mark.parametrize(("mode", "wire"), [("zebrapack", ZEBRAPACK), ("msgp", MSGP)])
def test_the_arrow_writer_leaves_it_out_alike(mode: str, wire: str) -> None:
    pa = pytest.importorskip("pyarrow")
    import zebrapack.arrow
    table = pa.RecordBatchReader.from_stream(zebrapack.arrow.read(bytes.fromhex(ZEBRAPACK), SCHEMA, "T")).read_all()
    assert table.to_pylist() == [{"Z": [], "B": b"", "A": [0, 0], "O": []}]
    out = io.BytesIO()
    zebrapack.arrow.write(table, out, SCHEMA, "T", mode=mode)
    assert out.getvalue().hex() == wire
