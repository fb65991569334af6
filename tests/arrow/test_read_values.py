"""zebrapack.arrow.read gives the values decode gives, under the documented mapping:
every reference vector and golden record, read through Arrow and compared with
decode (pyarrow is the oracle; every array passes pyarrow's full validation)."""

from __future__ import annotations

import struct
import warnings
from datetime import datetime

import pytest
from support.vectors import MANIFEST, VECTORS, case_id, vector_bytes, vector_schema
from support.golden import GOLDEN_RECORDS, golden_bytes, golden_schema

import zebrapack
import zebrapack.arrow as zpa
from zebrapack import GoTime, Kind, Timestamp
from zebrapack.arrow._mapping import ArrowField, arrow_fields

from support.engines import engine

pa = engine("pyarrow")

_UNIX_EPOCH_SECONDS = 62135596800      # from Go's zero time (year 1) to 1970


def time_value(value, unit: str) -> int:
    """A decoded time.Time as the integer of a timestamp column."""
    if isinstance(value, GoTime):
        seconds, nanos = value.seconds, value.nanoseconds
    else:
        delta = value - datetime(1970, 1, 1, tzinfo=value.tzinfo)
        seconds = delta.days * 86400 + delta.seconds
        nanos = delta.microseconds * 1000 + (value.nanosecond if isinstance(value, Timestamp) else 0)
    return seconds * 10**9 + nanos if unit == "ns" else seconds * 10**6 + nanos // 1000


def bits_type(arrow_type):
    """The same layout with timestamps as int64 and floats as their bits (Array.view)."""
    if pa.types.is_timestamp(arrow_type):
        return pa.int64()
    if pa.types.is_float64(arrow_type):
        return pa.uint64()
    if pa.types.is_float32(arrow_type):
        return pa.uint32()
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(bits_type(f.type)) for f in arrow_type])
    if pa.types.is_map(arrow_type):
        return pa.map_(bits_type(arrow_type.key_type), arrow_type.item_field.with_type(bits_type(arrow_type.item_type)))
    if pa.types.is_fixed_size_list(arrow_type):
        return pa.list_(arrow_type.value_field.with_type(bits_type(arrow_type.value_type)), arrow_type.list_size)
    if pa.types.is_list(arrow_type):
        return pa.list_(arrow_type.value_field.with_type(bits_type(arrow_type.value_type)))
    return arrow_type


def expected(value, node: ArrowField, unit: str, record: bytes):
    """What the Arrow column holds for a decoded value (floats as bits, times as integers)."""
    if value is None:
        return None
    ref = node.type
    while ref is not None and ref.kind == Kind.POINTER:
        ref = ref.elem
    if node.raw:
        return RawIn(record)            # the value's own bytes, verbatim
    if node.format == "g":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if node.format == "f":
        return struct.unpack("<I", struct.pack("<f", value))[0] if value == value else "nan32"
    if node.format.startswith("ts"):
        return time_value(value, unit)
    if node.extension in ("zebrapack.complex64", "zebrapack.complex128"):
        return {"real": expected(value.real, node.children[0], unit, record),
                "imag": expected(value.imag, node.children[1], unit, record)}
    if node.extension == "zebrapack.ext":
        return {"code": value.code, "data": bytes(value.data)}
    if node.format == "+s":
        return {child.name: expected(getattr(value, zebrapack.schema.model.python_name(child.name)), child, unit, record)
                for child in node.children}
    if node.format in ("+l",) or node.format.startswith("+w:"):
        return [expected(item, node.children[0], unit, record) for item in value]
    if node.format == "+m":
        key, item = node.children[0].children
        return [(expected(k, key, unit, record), expected(v, item, unit, record)) for k, v in value.items()]
    return value


class RawIn:
    """A raw msgpack column's value: a non-empty slice of the input."""

    def __init__(self, data: bytes) -> None:
        self.data = data


def compare(actual, want):
    if isinstance(want, RawIn):
        assert isinstance(actual, bytes) and actual and actual in want.data
    elif want == "nan32":
        assert actual & 0x7f800000 == 0x7f800000 and actual & 0x7fffff
    elif isinstance(want, dict):
        assert set(actual) == set(want)
        for name in want:
            compare(actual[name], want[name])
    elif isinstance(want, list):
        assert len(actual) == len(want)
        for a, w in zip(actual, want):
            compare(a, w)
    elif isinstance(want, tuple):
        compare(actual[0], want[0])
        compare(actual[1], want[1])
    else:
        assert actual == want


def check_table(schema, data: bytes, type_name: str, *, unit: str = "ns", strict: bool = False, **options):
    """Read data through Arrow and compare every row with decode_all."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        records = schema.decode_all(data, type_name, strict=strict)
    table = zpa.read(data, schema, type_name, time_unit=unit, strict=strict, **options).read_all()
    table.validate(full=True)
    root = arrow_fields(schema, type_name, time_unit=unit)
    assert table.num_rows == len(records)
    view = pa.Table.from_batches(
        [pa.RecordBatch.from_struct_array(b.to_struct_array().view(bits_type(pa.struct(list(table.schema)))))
         for b in table.to_batches()], schema=pa.schema([f.with_type(bits_type(f.type)) for f in table.schema]))
    rows = view.to_pylist()
    for record, row in zip(records, rows):
        compare(row, expected(record, root, unit, data))
    return table


def check_either_unit(schema, data: bytes, type_name: str):
    """ns first; a time outside it (Go's zero time in a container, years past 2262)
    then microseconds; a time neither holds (years past 2262 with nanoseconds) is
    an error naming its path in both."""
    try:
        check_table(schema, data, type_name)
        return
    except zebrapack.DecodeError as exc:
        assert "timestamp[ns]" in exc.reason and exc.path.count(".") >= 1, exc
    try:
        check_table(schema, data, type_name, unit="us")
    except zebrapack.DecodeError as exc:
        assert "timestamp[us]" in exc.reason and exc.path.count(".") >= 1, exc


@pytest.mark.parametrize("case", MANIFEST, ids=case_id)
def test_reference_vectors_read_as_decode_reads_them(case):
    check_either_unit(vector_schema(case["schema"]), vector_bytes(case), case["type"])


@pytest.mark.parametrize("record", GOLDEN_RECORDS, ids=lambda r: r["id"])
def test_golden_records_read_as_decode_reads_them(record):
    check_either_unit(golden_schema(record), golden_bytes(record), record["type"])


@pytest.mark.parametrize(("value", "bad", "path"), [
    ({"k": "xq"}, (b"\xa2xq", b"\xa2x\xff"), "Prims.Any['k']"),
    ({"j": [1, {"z": "yq"}]}, (b"\xa2yq", b"\xa2y\xff"), "Prims.Any['j'][1]['z']"),
])
def test_errors_inside_interface_maps_name_the_key_as_decode_does(value, bad, path):
    schema = vector_schema("zp.z")
    record = schema.decode(schema.encode(schema.types.Prims()))
    record.Any = value
    data = schema.encode(record).replace(*bad)
    with pytest.raises(zebrapack.DecodeError) as decoded:
        schema.decode(data)
    with pytest.raises(zebrapack.DecodeError) as read:
        zpa.read(data, schema, "Prims").read_next_batch()
    assert read.value.path == decoded.value.path == path
    assert read.value.offset == decoded.value.offset
