"""A []byte field whose value is a whole bin8, bin16 or bin32 is read in read_struct's
loop without read_value's dispatch; every other value (a str when lenient, nil, a bin
cut short, another type) goes the general way, with the same values, errors, paths and
offsets as before."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

import zebrapack
from zebrapack import DecodeError


@dataclass(slots=True)
class Blob:
    B: bytes = field(default=b"", metadata={"zid": 0})
    N: int = field(default=0, metadata={"zid": 1})


@pytest.fixture(scope="module")
def schema() -> zebrapack.Schema:
    return zebrapack.schema_from_dataclasses(Blob, package="blobs")


def bin_header(n: int, width: int) -> bytes:
    return {1: b"\xc4" + n.to_bytes(1, "big"), 2: b"\xc5" + n.to_bytes(2, "big"),
            4: b"\xc6" + n.to_bytes(4, "big")}[width]


@pytest.mark.parametrize("width", [1, 2, 4])
@pytest.mark.parametrize("n", [0, 1, 16, 255])
def test_bin_of_every_width_reads_its_bytes(schema: zebrapack.Schema, width: int, n: int) -> None:
    payload = bytes(range(n))
    data = b"\x82\x00" + bin_header(n, width) + payload + b"\x01\x07"
    assert schema.decode(data, Blob) == Blob(B=payload, N=7)
    assert schema.decode(schema.encode(Blob(B=payload * 300, N=1)), Blob) == Blob(B=payload * 300, N=1)


@pytest.mark.parametrize("data", [b"\x81\x00\xc4\x05abcd", b"\x81\x00\xc4", b"\x81\x00\xc5\x00", b"\x81\x00\xc6\x00\x00\x00\x09x"])
def test_a_bin_cut_short_fails_at_the_field(schema: zebrapack.Schema, data: bytes) -> None:
    with pytest.raises(DecodeError, match="input ends inside a value") as caught:
        schema.decode(data, Blob)
    assert (caught.value.path, caught.value.offset) == ("Blob.B", 2)


def test_other_values_go_the_general_way(schema: zebrapack.Schema) -> None:
    assert schema.decode(b"\x81\x00\xc0", Blob).B == b""                 # nil: the zero value
    assert schema.decode(b"\x81\x00\xa3abc", Blob).B == b"abc"           # a str, lenient
    with pytest.raises(DecodeError) as caught:
        schema.decode(b"\x81\x00\xa3abc", Blob, strict=True)
    assert (caught.value.path, caught.value.offset) == ("Blob.B", 2)
    with pytest.raises(DecodeError) as caught:
        schema.decode(b"\x81\x00\x05", Blob)
    assert (caught.value.path, caught.value.offset) == ("Blob.B", 2)
