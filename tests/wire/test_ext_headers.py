"""Extension headers as the reference writes them (FORMAT.md section 7): its MarshalMsg path
(msgp.AppendExtension), which wrote every golden record, gives every payload of 0..254 bytes
an ext8 header, the 1, 2, 4, 8 and 16-byte ones included (its switch over the fixext sizes
falls through to the length switch, which overwrites the header); its EncodeMsg path
(msgp.Writer.WriteExtension) writes fixext1/2/4/8/16 for those: ``fixext=True``. Both read
both. Complex (fixext8/16) and time (ext8 of 12 bytes) keep their own headers either way,
and so does an ext 3 or 4 inside interface{}, which Go reads as a complex."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from typing import Any

import pytest
from support.cli import call_main
from support.vectors import TESTS

import zebrapack
from zebrapack import Ext

DEF = zebrapack.load(TESTS / "golden2" / "schemas" / "def.z")
MY = zebrapack.load(TESTS / "golden" / "schemas" / "my.z")
#: The Oext field of a Things record (msgp mode) up to its value: the record's last field.
OEXT_KEY = b"\xa4oext"
FIXEXT = {1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8}


def oext(data: bytes, **options: Any) -> bytes:
    """The Oext value's bytes of a Things holding an extension of type 9 with data."""
    written = DEF.encode(DEF.types.Things(Oext=Ext(9, data)), mode="msgp", **options)
    return written[written.rindex(OEXT_KEY) + len(OEXT_KEY):]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 8, 16, 17, 254])
def test_marshalmsg_writes_ext8_below_255_bytes(size: int) -> None:
    assert oext(bytes(size)) == bytes([0xc7, size, 9]) + bytes(size)


@pytest.mark.parametrize(("size", "header"), [(255, "c800ff09"), (65534, "c8fffe09"), (65535, "c90000ffff09")])
def test_ext16_below_65535_bytes_then_ext32(size: int, header: str) -> None:
    for fixext in (False, True):
        assert oext(bytes(size), fixext=fixext).startswith(bytes.fromhex(header))


@pytest.mark.parametrize("size", sorted(FIXEXT))
def test_fixext_writes_encodemsgs_fixext_headers(size: int) -> None:
    assert oext(bytes(size), fixext=True) == bytes([FIXEXT[size], 9]) + bytes(size)
    other = size + 1 if size + 1 not in FIXEXT else size + 2
    assert oext(bytes(other), fixext=True) == bytes([0xc7, other, 9]) + bytes(other)


@pytest.mark.parametrize("size", sorted(FIXEXT))
def test_both_headers_read_as_the_same_extension(size: int) -> None:
    value = DEF.types.Things(Ext=Ext(9, b"\x07" * size), Oext=Ext(9, b"\x01" * size))
    for fixext in (False, True):
        assert DEF.decode(DEF.encode(value, mode="msgp", fixext=fixext), type="Things", strict=True) == value


def test_exts_inside_interface_values_follow_the_same_rule() -> None:
    for fixext, header in ((False, "c70107"), (True, "d407")):
        written = MY.encode(MY.types.Sys(F=[Ext(7, b"x"), {"k": Ext(7, b"x")}]), fixext=fixext)
        assert written.count(bytes.fromhex(header) + b"x") == 2


def test_complex_time_and_interface_complex_exts_keep_their_headers() -> None:
    moment = datetime(2020, 1, 1, tzinfo=timezone.utc)
    for fixext in (False, True):
        things = DEF.encode(DEF.types.Things(Cmplx=1 + 2j), mode="msgp", fixext=fixext)
        assert bytes.fromhex("a7636f6d706c6578d7033f80000040000000") in things
        for value, wire in ((moment, "c70c05"), (Ext(3, bytes(8)), "d703"), (Ext(4, bytes(16)), "d804"),
                            (Ext(5, bytes(12)), "c70c05")):
            assert bytes.fromhex(wire) in MY.encode(MY.types.Sys(F=value), fixext=fixext)


def test_every_writer_takes_fixext() -> None:
    value = DEF.types.Things(Oext=Ext(9, b"ab"))
    marshal, encode = DEF.encode(value, mode="msgp"), DEF.encode(value, mode="msgp", fixext=True)
    assert marshal.endswith(b"\xc7\x02\x09ab") and encode.endswith(b"\xd5\x09ab")
    buffer = bytearray()
    DEF.encode_into(value, buffer, mode="msgp", fixext=True)
    assert bytes(buffer) == encode
    out = io.BytesIO()
    with DEF.writer(out, mode="msgp", fixext=True) as writer:
        writer.write(value)
    assert out.getvalue() == encode


def test_arrow_writer_takes_fixext() -> None:
    pa = pytest.importorskip("pyarrow")
    import zebrapack.arrow
    ext = pa.StructArray.from_arrays([pa.array([9], pa.int8()), pa.array([b"ab"], pa.binary())], names=["code", "data"])
    for fixext, tail in ((False, b"\xc7\x02\x09ab"), (True, b"\xd5\x09ab")):
        out = io.BytesIO()
        zebrapack.arrow.write(pa.table({"Oext": ext}), out, DEF, "Things", mode="msgp", fixext=fixext)
        assert out.getvalue().endswith(tail)


def test_cli_encode_takes_fixext(monkeypatch: pytest.MonkeyPatch) -> None:
    line = json.dumps({"$type": "Things", "Oext": {"$ext": [9, "6162"]}}).encode() + b"\n"
    for options, tail in (((), b"\xc7\x02\x09ab"), (("--fixext",), b"\xd5\x09ab")):
        status, out, err = call_main(monkeypatch, "encode", "--msgp", *options, "-s",
                                     TESTS / "golden2" / "schemas" / "def.z", stdin=line)
        assert (status, err) == (0, "")
        assert out.endswith(tail)
