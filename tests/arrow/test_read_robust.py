"""Bad input through the Arrow reader: an error naming where, never a crash,
and the same acceptance as decode (hypothesis over random and mutated bytes)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from support.vectors import MANIFEST, vector_bytes, vector_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import zebrapack
import zebrapack.arrow as zpa

from support.engines import engine
from support.memory import needs_resident_size, steady_growth

pa = engine("pyarrow")

CASES = [case for case in MANIFEST if not case.get("count")]


def read_or_error(data: bytes, schema, type_name: str, strict: bool):
    """The table, or the DecodeError (checked to name a path and an offset inside the input)."""
    try:
        table = zpa.read(data, schema, type_name, strict=strict, time_unit="us").read_all()
    except zebrapack.DecodeError as exc:
        assert exc.path.startswith(type_name) or exc.path == "$"
        assert exc.offset is not None and 0 <= exc.offset <= len(data)
        assert exc.record is not None
        return exc
    table.validate(full=True)
    return table


def decodes(data: bytes, schema, type_name: str, strict: bool) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            schema.decode_all(data, type_name, strict=strict)
        except zebrapack.DecodeError:
            return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.binary(max_size=64), st.booleans())
def test_random_bytes_never_crash(case, data, strict):
    read_or_error(data, vector_schema(case["schema"]), case["type"], strict)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CASES), st.data(), st.booleans())
def test_mutated_records_accepted_exactly_when_decode_accepts_them(case, draw, strict):
    schema = vector_schema(case["schema"])
    data = bytearray(vector_bytes(case))
    for _ in range(draw.draw(st.integers(1, 3))):
        at = draw.draw(st.integers(0, len(data) - 1))
        data[at] = draw.draw(st.integers(0, 255))
    cut = draw.draw(st.integers(0, len(data)))
    data = bytes(data[:cut])
    result = read_or_error(data, schema, case["type"], strict)
    if isinstance(result, pa.Table):
        # accepted by Arrow: decode accepts it too (the values are test_read_values' business)
        assert decodes(data, schema, case["type"], strict)
    elif decodes(data, schema, case["type"], strict):
        # refused by Arrow only for what Arrow cannot hold: a time outside timestamp[us]
        assert "timestamp[us]" in result.reason, result


FUZZ = Path(__file__).resolve().parent.parent / "fuzz"
FUZZ_INPUTS = sorted(p for folder in ("corpus", "crashers") for p in (FUZZ / folder).iterdir() if p.is_file())


@pytest.mark.parametrize("path", FUZZ_INPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fuzz_corpus_replays_through_the_arrow_target(path):
    sys.path.insert(0, str(FUZZ))
    try:
        from arrow_target import check_arrow
    finally:
        sys.path.remove(str(FUZZ))
    check_arrow(path.read_bytes())


@needs_resident_size
def test_readers_streams_and_batches_free_everything():
    schema = vector_schema("zp.z")
    good = vector_bytes(next(case for case in MANIFEST if case["name"] == "Compound_full")) * 50
    bad = good + b"\x81\x00\xc1"

    def rounds(count: int) -> None:
        for _ in range(count):
            pa.RecordBatchReader.from_stream(zpa.read(good, schema, "Compound", batch_rows=7)).read_all()
            zpa.read(good, schema, "Compound").__arrow_c_stream__()        # never consumed
            reader = zpa.read(good, schema, "Compound", batch_rows=5)._open()
            reader.next_batch()                                          # capsules dropped unimported
            with pytest.raises(zebrapack.DecodeError):
                zpa.read(bad, schema, "Compound").read_all()
            zpa.arrow_schema(schema, "Compound").__arrow_c_schema__()

    rounds(50)                                   # warm up the allocators
    # leaking one read a round would take ~10 MB in each window
    assert steady_growth(lambda: rounds(500)) < 1 << 20


def test_values_kept_as_bytes_are_checked_as_decode_reads_them():
    schema = vector_schema("zp.z")
    # Prims.Any holding a map that names struct Inner, whose X (int32) holds a str
    record = b"\x81\x13\x82\xff\xa5Inner\x00\xa1x"
    with pytest.raises(zebrapack.DecodeError) as decoded:
        schema.decode(record, "Prims")
    with pytest.raises(zebrapack.DecodeError) as read:
        zpa.read(record, schema, "Prims").read_all()
    assert read.value.path == decoded.value.path == "Prims.Any.X"
    # a recursive struct's inner occurrence is read as that struct
    tree = b"\x81\x03\x81\x02\xa1w"      # Tree.Up.Weight (float32) holding a str
    with pytest.raises(zebrapack.DecodeError) as decoded:
        schema.decode(tree, "Tree")
    with pytest.raises(zebrapack.DecodeError) as read:
        zpa.read(tree, schema, "Tree").read_all()
    assert read.value.path == decoded.value.path == "Tree.Up.Weight"
    ok = b"\x81\x13\x82\xff\xa5Inner\x00\x05"
    assert zpa.read(ok, schema, "Prims").read_all().column("Any").to_pylist() == [ok[2:]]
