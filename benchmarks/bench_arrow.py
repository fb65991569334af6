"""Record files into Arrow and back: ``zebrapack.arrow`` against what users do without it.

    python -m benchmarks.bench_arrow [--records N] [--compound-records M] [--rounds R] [--best-of B] [--out DIR]
    python -m benchmarks.bench_arrow --go-only [--records N] [--rounds R]   # the Go section alone

Into a ``pyarrow.Table`` (the same Arrow schema for every contender), from the
same seeded records held in memory:

- ``zebrapack.arrow.read(...).read_all()``;
- (a) ``schema.decode_all`` + ``pyarrow.Table.from_pylist`` (what users do today);
- (b) msgspec decoding one msgpack array into ``list[Struct]`` + ``from_pylist``;
- (c) ``pyarrow.json.read_json`` of the same records as JSON lines (single-threaded,
  like the others; the README ``A`` shape only: pyarrow's JSON reader has no maps);

for N records of the README ``A`` shape (``src/zebrapack/examples/zp.go``, random
values, default 1,000,000) and M records of the container-heavy ``Compound``
(``tests/vectors/schemas/zp.z``, default N / 10). Then a two-column projection
(``columns=``) against the full read, and the write direction: ``zebrapack.arrow.write``
of the table against ``Table.to_pylist`` + the generated classes + ``encode``. Last,
``zebrapack.arrow.read`` and ``write`` of the ``A`` records beside Go's own generated
code on the same records (``_gobench``: tinylib/msgp's ``UnmarshalMsg`` and
``MarshalMsg``, one thread), with the ratios; ``--go-only`` runs that section alone.

Timing as in ``_harness``: contenders interleaved, each round keeping each one's best
of ``--best-of`` calls (default 1: one call is a whole table), ``--rounds`` rounds
(default 3); figures are the best round, ``spread`` = worst/best - 1, speedups the
median (min-max) over rounds of the baseline's time over zebrapack's. The garbage
collector stays on. Writes ``benchmarks/results/arrow.md`` (or ``--out DIR``/arrow.md).
Works without ``zebrapack.arrow`` (the baselines alone) so the baselines can be
measured before the reader exists.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import operator
import random
import sys
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.json as pa_json

import zebrapack
import zebrapack.examples

from . import _compound, _gobench, _structs
from ._harness import (RESULTS_DIR, Options, SelfTimed, Timing, emit, interleaved, machine, markdown_table, ns,
                       parse_options, ratio)
from ._shapes import SEED, ZP_SCHEMA_PATH, a_values, to_builtins

try:
    import zebrapack.arrow as zpa
except ImportError:         # before the reader exists: the baselines alone
    zpa = None

A_COLUMNS = ["Name", "Sibs"]
COMPOUND_COLUMNS = ["Shown", "Renamed"]

UTC_NS = pa.timestamp("ns", "UTC")
#: The Arrow schemas of the mapping (README "Arrow"), spelled out so that the baselines
#: build the same table without zebrapack.arrow.
A_SCHEMA = pa.schema([pa.field("Name", pa.string(), False), pa.field("Bday", UTC_NS),
                      pa.field("Phone", pa.string(), False), pa.field("Sibs", pa.int64(), False),
                      pa.field("GPA", pa.float64(), False), pa.field("Friend", pa.bool_(), False)])
_INNER = pa.struct([pa.field("X", pa.int32(), False), pa.field("Y", pa.string(), False)])


def _list(item: pa.DataType, nullable: bool = False, size: int = -1) -> pa.DataType:
    return pa.list_(pa.field("item", item, nullable), size)


def _map(key: pa.DataType, value: pa.DataType, nullable: bool = False) -> pa.DataType:
    return pa.map_(pa.field("key", key, False), pa.field("value", value, nullable))


COMPOUND_SCHEMA = pa.schema([
    pa.field("Ints", _list(pa.int64()), False), pa.field("Strs", _list(pa.string()), False),
    pa.field("Arr", _list(pa.float64(), size=3), False), pa.field("ByteArr", pa.binary(4), False),
    pa.field("SMap", _map(pa.string(), pa.int64()), False), pa.field("IMap", _map(pa.int64(), pa.string()), False),
    pa.field("Nested", _INNER, False), pa.field("Ptr", _INNER), pa.field("Inners", _list(_INNER), False),
    pa.field("PInners", _list(_INNER, True), False), pa.field("MInner", _map(pa.string(), _INNER, True), False),
    pa.field("Matrix", _list(_list(pa.int32())), False), pa.field("Old", pa.uint16(), False),
    pa.field("Shown", pa.int64(), False), pa.field("PInt", pa.int64()), pa.field("Renamed", pa.string(), False),
    pa.field("Anys", _list(pa.binary(), True), False),
    pa.field("Times", _list(UTC_NS), False),
])


@dataclasses.dataclass
class Shape:
    """One shape's records in every encoding the contenders read, and its target schema."""

    name: str
    type: str
    schema: zebrapack.Schema
    arrow_schema: pa.Schema
    count: int
    zebrapack_stream: bytes
    msgspec_array: bytes
    struct_type: type
    json_lines: bytes | None


def a_shape(count: int) -> Shape:
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    rng = random.Random(SEED)
    values = [a_values(rng) for _ in range(count)]
    stream = b"".join(map(schema.encode, (schema.types.A(**v) for v in values)))
    structs = [_structs.A(**v) for v in values]
    del values
    return Shape("README A", "A", schema, A_SCHEMA, count, stream, msgspec.msgpack.encode(structs), _structs.A,
                 msgspec.json.Encoder().encode_lines(structs))


def compound_shape(count: int) -> Shape:
    schema = zebrapack.load(ZP_SCHEMA_PATH)
    classes = SimpleNamespace(Inner=schema.types.Inner, Compound=schema.types.Compound)
    rng = random.Random(SEED)
    records = [_compound.compound_values(classes, rng) for _ in range(count)]
    stream = b"".join(map(schema.encode, records))
    rng = random.Random(SEED)
    structs = [_compound.compound_values(_compound.STRUCT, rng) for _ in range(count)]
    return Shape("Compound", "Compound", schema, COMPOUND_SCHEMA, count, stream, msgspec.msgpack.encode(structs),
                 _compound.CompoundStruct, None)


# -- the contenders -------------------------------------------------------------------


def _rows_of(records: Sequence[Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """The dicts from_pylist takes, one per record (the generated classes or msgspec Structs),
    nested records as dicts too; fields that hold no record are taken as they are."""
    if not records:
        return []
    holders = [name for name in names if _holds_records(getattr(records[0], name))]
    get = operator.attrgetter(*names)
    rows = [dict(zip(names, get(record) if len(names) > 1 else (get(record),))) for record in records]
    if holders:
        for row in rows:
            for name in holders:
                row[name] = to_builtins(row[name])
    return rows


def _is_record(value: Any) -> bool:
    return isinstance(value, msgspec.Struct) or dataclasses.is_dataclass(value)


def _holds_records(value: Any) -> bool:
    """Whether a field (of the first record: the shapes' records all look alike) holds records."""
    if _is_record(value):
        return True
    if isinstance(value, list):
        return any(_holds_records(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_records(item) for item in value.values())
    return False


def read_contenders(shape: Shape, columns: Sequence[str] | None = None) -> dict[str, Callable[[], pa.Table]]:
    """Each way of making the table (``columns``: only those, where the way allows)."""
    target = shape.arrow_schema if columns is None else pa.schema([shape.arrow_schema.field(c) for c in columns])
    names = target.names
    decoder = msgspec.msgpack.Decoder(list[shape.struct_type])  # type: ignore[name-defined]
    contenders: dict[str, Callable[[], pa.Table]] = {}
    if zpa is not None and hasattr(zpa, "read"):
        contenders["zebrapack.arrow.read"] = \
            lambda: zpa.read(shape.zebrapack_stream, shape.schema, shape.type, columns=columns).read_all()
    contenders["(a) decode_all + from_pylist"] = \
        lambda: pa.Table.from_pylist(_rows_of(shape.schema.decode_all(shape.zebrapack_stream), names), target)
    contenders["(b) msgspec list[Struct] + from_pylist"] = \
        lambda: pa.Table.from_pylist(_rows_of(decoder.decode(shape.msgspec_array), names), target)
    if shape.json_lines is not None:
        options = pa_json.ReadOptions(use_threads=False, block_size=1 << 24)
        parse = pa_json.ParseOptions(explicit_schema=target, unexpected_field_behavior="ignore")
        contenders["(c) pyarrow.json.read_json"] = \
            lambda: pa_json.read_json(io.BytesIO(shape.json_lines), read_options=options, parse_options=parse)
    return contenders


def check_same_tables(contenders: dict[str, Callable[[], pa.Table]]) -> None:
    """Every contender makes the same table (so the race is fair)."""
    tables = {name: function().combine_chunks() for name, function in contenders.items()}
    first_name, first = next(iter(tables.items()))
    for name, table in tables.items():
        assert table.schema.names == first.schema.names, f"{name} makes other columns than {first_name}"
        for column in first.schema.names:
            # pyarrow's JSON reader makes every column nullable: types are compared, not nullability
            assert table.schema.field(column).type.equals(first.schema.field(column).type), \
                f"{name} makes another type of {column} than {first_name}"
            assert table.column(column).equals(first.column(column)), \
                f"{name} reads other values of {column} than {first_name}"


def write_contenders(shape: Shape, table: pa.Table) -> dict[str, Callable[[], bytes]]:
    """Each way of writing the records of a flat table (the README ``A`` shape)."""
    cls = shape.schema.types[shape.type]
    contenders: dict[str, Callable[[], bytes]] = {}
    if zpa is not None and hasattr(zpa, "write"):
        def zebrapack_write() -> bytes:
            out = io.BytesIO()
            zpa.write(table, out, shape.schema, shape.type)
            return out.getvalue()
        contenders["zebrapack.arrow.write"] = zebrapack_write
    contenders["to_pylist + classes + encode"] = \
        lambda: b"".join(map(shape.schema.encode, (cls(**row) for row in table.to_pylist())))
    return contenders


# -- timing and the report ----------------------------------------------------------

OURS = ("zebrapack.arrow.read", "zebrapack.arrow.write")
REUSED = "zebrapack.arrow.write, a reused BytesIO"


def race(contenders: dict[str, Callable[[], Any]], options: Options, count: int) -> str:
    """Time the contenders interleaved; a table with ns per record and zebrapack's speedups."""
    timings: dict[str, Timing] = interleaved(contenders, options)
    ours_name = next((name for name in contenders if name.startswith(OURS)), None)
    ours = timings[ours_name] if ours_name is not None else None
    rows = []
    for name, timing in timings.items():
        speedup = "" if ours is None or name == ours_name else f"{ratio(timing, ours)}x"
        rows.append([name, ns(timing.best), f"{timing.best / count:,.0f} ns", f"{timing.spread:.0%}", speedup])
    return markdown_table(["contender", "time", "per record", "spread", "zebrapack.arrow is faster by"], rows)


def _projection_contenders(shape: Shape, columns: list[str]) -> dict[str, Callable[[], Any]]:
    contenders: dict[str, Callable[[], Any]] = {}
    if zpa is not None and hasattr(zpa, "read"):
        full = read_contenders(shape)["zebrapack.arrow.read"]
        contenders[f"zebrapack.arrow.read, columns={columns}"] = \
            read_contenders(shape, columns)["zebrapack.arrow.read"]
        contenders["zebrapack.arrow.read, every column"] = full
    contenders[f"(a) decode_all + from_pylist, {len(columns)} columns"] = \
        read_contenders(shape, columns)["(a) decode_all + from_pylist"]
    return contenders


class ReusedSink:
    """``zebrapack.arrow.write`` into one ``BytesIO`` rewritten from its start each call: the
    sink is written (every byte copied into it, as into a file's buffer) but, after the
    first call, no longer grown, as Go's ``MarshalMsg`` appends into a buffer reused and
    large enough. ``check`` compares the sink with the expected bytes without copying it."""

    def __init__(self, shape: Shape, table: pa.Table) -> None:
        self.sink = io.BytesIO()
        self.shape = shape
        self.table = table

    def __call__(self) -> None:
        assert zpa is not None
        self.sink.seek(0)
        zpa.write(self.table, self.sink, self.shape.schema, self.shape.type)

    def check(self, expected: bytes) -> None:
        self()
        with self.sink.getbuffer() as view:     # (getvalue would share the buffer: the next call copies it)
            if view != expected:
                raise AssertionError("zebrapack.arrow.write into a reused sink does not write the records read")


def against_go(shape: Shape, table: pa.Table, options: Options) -> str:
    """``zebrapack.arrow.read`` and ``write`` of the A records beside Go's generated code on
    the same records, interleaved (Go times its own passes, in its process): per record,
    and the ratios with the targets of issue 26."""
    if zpa is None or not hasattr(zpa, "read"):
        return "zebrapack.arrow is not available here."
    try:
        go = _gobench.GoMsgp(shape.zebrapack_stream)
    except _gobench.GoUnavailable as exc:
        return f"Not measured: {exc}."
    with go:
        if go.records != shape.count:
            raise AssertionError(f"Go read {go.records} records of {shape.count}")
        zebrapack_read = read_contenders(shape)["zebrapack.arrow.read"]
        zebrapack_write = write_contenders(shape, table)["zebrapack.arrow.write"]
        reused = ReusedSink(shape, table)
        reused.check(shape.zebrapack_stream)
        timed = {name: SelfTimed(lambda op=op: go.pass_ns(op)) for op, name in _gobench.OPERATIONS.items()}
        labels = _gobench.OPERATIONS
        contenders: dict[str, Any] = {"zebrapack.arrow.read": zebrapack_read,
                                      labels["unmarshal-reused"]: timed[labels["unmarshal-reused"]],
                                      labels["unmarshal-new"]: timed[labels["unmarshal-new"]],
                                      "zebrapack.arrow.write": zebrapack_write,
                                      REUSED: reused,
                                      labels["marshal"]: timed[labels["marshal"]]}
        timings = interleaved(contenders, options)
    rows = [[name, f"{timing.best / shape.count:,.1f} ns", ns(timing.best), f"{timing.spread:.0%}"]
            for name, timing in timings.items()]
    ratios = [("zebrapack.arrow.read / UnmarshalMsg into a reused A", "zebrapack.arrow.read",
               labels["unmarshal-reused"], "≤ 0.4"),
              ("zebrapack.arrow.read / UnmarshalMsg into new A", "zebrapack.arrow.read", labels["unmarshal-new"], ""),
              ("zebrapack.arrow.write / MarshalMsg", "zebrapack.arrow.write", labels["marshal"], "≤ 1.0"),
              ("zebrapack.arrow.write into a reused sink / MarshalMsg (like for like)", REUSED, labels["marshal"],
               "≤ 1.0")]
    ratio_rows = [[label, f"{ratio(timings[ours], timings[theirs])}x", target] for label, ours, theirs, target in ratios]
    return (f"{shape.count:,} records; Go {_gobench.go_version()}, code generated by {_gobench.GENERATOR} "
            f"(tests/go/zp/a_gen.go: field names as keys, {go.msgp_bytes / 1e6:.1f} MB where zebrapack's "
            f"zids take {len(shape.zebrapack_stream) / 1e6:.1f} MB), GOMAXPROCS=1; zebrapack.arrow on one "
            "thread, into and from a pyarrow.Table. Go times each pass itself. zebrapack.arrow.write writes "
            "into a new BytesIO and takes its value (what a caller does), and into one BytesIO reused from its "
            "start (no growth, as Go's buffer); both copy every byte into the sink.\n\n"
            + markdown_table(["contender", "per record", "pass", "spread"], rows) + "\n\n"
            + markdown_table(["ratio (median, min–max over rounds)", "value", "target (issue 26)"], ratio_rows))


def _a_table(a: Shape) -> pa.Table:
    return pa.Table.from_pylist(_rows_of(a.schema.decode_all(a.zebrapack_stream), A_SCHEMA.names), A_SCHEMA)


def _header(options: Options) -> str:
    return (f"{machine()}; pyarrow {pa.__version__}. Rounds {options.rounds}, best of {options.best_of} per round; "
            "GC on. Speedup: a baseline's time over zebrapack's, median (min-max) over the rounds.\n\n")


def run_against_go(options: Options, a_count: int) -> str:
    """The section against Go's generated code alone (``--go-only``)."""
    a = a_shape(a_count)
    return _header(options) + f"### {a.name} records against Go's generated code\n\n" \
        + against_go(a, _a_table(a), options)


def run(options: Options, a_count: int, compound_count: int) -> str:
    sections = []
    a = a_shape(a_count)
    compound = compound_shape(compound_count)
    for shape in (a, compound):
        contenders = read_contenders(shape)
        check_same_tables(contenders)
        sections.append((f"{shape.name} records into a pyarrow.Table",
                         f"{shape.count:,} records, {len(shape.zebrapack_stream) / 1e6:.1f} MB of zebrapack.\n\n"
                         + race(contenders, options, shape.count)))
    for shape, columns in ((a, A_COLUMNS), (compound, COMPOUND_COLUMNS)):
        contenders = _projection_contenders(shape, columns)
        check_same_tables({name: f for name, f in contenders.items() if "every column" not in name})
        text = race(contenders, options, shape.count)
        if "zebrapack.arrow.read, every column" in contenders:
            text += "\n\n(On the full read's row: how much faster the projection is than reading every column.)"
        sections.append((f"Two-column projection of {shape.name}", text))
    table = _a_table(a)
    writers = write_contenders(a, table)
    for name, function in writers.items():
        assert function() == a.zebrapack_stream, f"{name} does not write the records read"
    sections.append((f"Writing {a.name} records from a pyarrow.Table",
                     f"{a.count:,} records into bytes, byte for byte the stream they were read from.\n\n"
                     + race(writers, options, a.count)))
    sections.append((f"{a.name} records against Go's generated code", against_go(a, table, options)))
    note = ("" if zpa is not None and hasattr(zpa, "read")
            else "zebrapack.arrow.read is not available here: the baselines alone.\n\n")
    return (_header(options) + note
            + "\n\n".join(f"### {title}\n\n{text}" for title, text in sections))


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--compound-records", type=int, default=None)
    parser.add_argument("--go-only", action="store_true")
    known, rest = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    options = parse_options(rest, __doc__.splitlines()[0])
    if "--rounds" not in rest and not options.quick:
        options.rounds = 3
    if "--best-of" not in rest and not options.quick:
        options.best_of = 1
    options.batch_seconds = 0.0          # one call is a whole table
    options.out = options.out or RESULTS_DIR
    if known.go_only:
        text = run_against_go(options, known.records)
        emit("Arrow: zebrapack.arrow against Go's generated code", text, options, "arrow-go.md")
        return text
    compound_count = known.compound_records or max(1, known.records // 10)
    text = run(options, known.records, compound_count)
    emit("Arrow: record files into tables and back", text, options, "arrow.md")
    return text


if __name__ == "__main__":
    main()
