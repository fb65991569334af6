"""Streams of README ``A`` records: zebrapack vs msgspec (and msgpack-python where msgspec has no equivalent).

    python -m benchmarks.bench_streams [--quick] [--rounds R] [--size stream_kb=100000] [--size append_n=32000]
                                       [--size record_mb=22]

- ``decode_all`` of ``stream_kb`` kB of records with the garbage collector on and
  off, against msgspec decoding one msgpack array of the same records into
  ``list[Struct]`` (GC on and off): into the generated classes, the user's own
  dataclasses, and the user's dataclasses deriving from ``zebrapack.Record``;
- ``iter_decode`` of that stream from a file, with the peak traced memory
  (tracemalloc, a separate pass), against ``msgpack.Unpacker`` over the same
  file building the dataclasses;
- appends: ``schema.writer(file).write`` and ``schema.encode_into(obj, buf, -1)``
  against msgspec's ``Encoder.encode`` + ``file.write`` and
  ``Encoder.encode_into(obj, buf, -1)``, at growing record counts (so that
  a per-append cost that grows with the buffer shows);
- bytes per decoded record: the memory the decoded records hold (tracemalloc),
  zebrapack vs msgspec Struct, msgspec dataclass and msgpack-python;
- the push decoder (``schema.stream_decoder``): the stream fed in 1 KiB and 64 KiB
  pieces (as a socket delivers it), each piece's records taken, against
  ``decode_all`` of the same bytes and against ``msgpack.Unpacker.feed`` of the same
  records as msgpack maps, building the dataclasses; and one record of
  ``record_mb`` MB (a list of ``A``) fed in 64 KiB pieces, against ``decode`` of it whole.

The records are a seeded block of distinct ``A`` values repeated to the size.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import msgpack
import msgspec

import zebrapack
from zebrapack.schema.document import schema_document

from . import _structs
from ._harness import Options, Timing, emit, machine, markdown_table, ns, parse_options, ratio
from ._shapes import SEED, A, As, a_values, generated_schema, shapes_schema

BLOCK = 10_000  # distinct records; longer streams repeat them


@dataclass(slots=True)
class RecordA(zebrapack.Record):
    """``A`` as a user's dataclass deriving from ``zebrapack.Record``: its decoded records
    that hold no containers are not GC-tracked, as those of the generated classes."""
    Name: str = ""
    Bday: Optional[datetime] = None
    Phone: str = ""
    Sibs: int = 0
    GPA: float = 0.0
    Friend: bool = False


def record_schema(schema: zebrapack.Schema) -> zebrapack.Schema:
    """The shapes' schema with ``RecordA`` for struct A."""
    document = msgpack.packb(schema_document(schema.model), use_bin_type=True)
    return zebrapack.load(document, types={"A": RecordA})


def _records(count: int) -> tuple[list[A], list[_structs.A]]:
    rng = random.Random(SEED)
    values = [a_values(rng) for _ in range(min(count, BLOCK))]
    plain = [A(**v) for v in values]
    structs = [_structs.A(**v) for v in values]
    repeat = -(-count // len(values))
    return (plain * repeat)[:count], (structs * repeat)[:count]


def _seconds(function: Callable[[], Any], *, gc_on: bool) -> float:
    """Seconds for one call, with the collector on or off; dropping the result is not timed."""
    gc.collect()
    (gc.enable if gc_on else gc.disable)()
    try:
        start = time.perf_counter()
        result = function()
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    del result
    return elapsed


def _fmt_times(times: list[float], count: int) -> list[str]:
    best = min(times)
    return [f"{best:.3f} s", ns(best * 1e9 / count), f"{max(times) / best - 1:.0%}"]


ON_RECORD = "zebrapack decode_all into user dataclasses deriving from zebrapack.Record"


def decode_all_section(options: Options, schema: Any, plain: list[A], structs: list[Any]) -> str:
    """decode_all into the generated classes (what ``zebrapack.load`` gives; the counterpart of
    msgspec's Struct), into the user's own dataclasses (``schema``), which stay GC-tracked, and
    into the user's dataclasses deriving from ``zebrapack.Record``, which are not."""
    count = len(plain)
    block = plain[:min(count, BLOCK)]
    zp_stream = b"".join(schema.encode(r) for r in block) * (count // len(block))
    generated = generated_schema()
    msgspec_array = msgspec.msgpack.encode(structs)
    struct_list = msgspec.msgpack.Decoder(list[_structs.A]).decode
    decoded = generated.decode_all(zp_stream)
    assert len(decoded) == count and [dataclasses.astuple(r) for r in decoded[:50]] == [
        dataclasses.astuple(r) for r in plain[:50]], "decode_all does not give the records back"
    assert schema.decode_all(zp_stream)[:50] == plain[:50]
    on_record = record_schema(schema)
    decoded = on_record.decode_all(zp_stream)
    assert [dataclasses.astuple(r) for r in decoded[:50]] == [dataclasses.astuple(r) for r in plain[:50]]
    assert type(decoded[0]) is RecordA and not gc.is_tracked(decoded[0])
    del decoded
    rounds = max(1, min(options.rounds, 3))
    rows: list[list[str]] = []
    times: dict[str, list[float]] = {}
    # Interleaved round by round so that load from other processes hits all alike.
    for _ in range(rounds):
        for label, function, gc_on in (
                ("zebrapack decode_all, GC on", lambda: generated.decode_all(zp_stream), True),
                ("msgspec list[Struct], GC on", lambda: struct_list(msgspec_array), True),
                ("zebrapack decode_all, GC off", lambda: generated.decode_all(zp_stream), False),
                ("msgspec list[Struct], GC off", lambda: struct_list(msgspec_array), False),
                ("zebrapack decode_all into user dataclasses, GC on", lambda: schema.decode_all(zp_stream), True),
                ("zebrapack decode_all into user dataclasses, GC off", lambda: schema.decode_all(zp_stream), False),
                (f"{ON_RECORD}, GC on", lambda: on_record.decode_all(zp_stream), True),
                (f"{ON_RECORD}, GC off", lambda: on_record.decode_all(zp_stream), False)):
            times.setdefault(label, []).append(_seconds(function, gc_on=gc_on))
    for label, values in times.items():
        rows.append([label, *_fmt_times(values, count)])

    def versus(label: str, gc_state: str) -> float:
        return min(times[f"{label}, GC {gc_state}"]) / min(times[f"msgspec list[Struct], GC {gc_state}"])
    return (f"{count:,} records, {len(zp_stream) / 1e6:.1f} MB of zebrapack ({len(msgspec_array) / 1e6:.1f} MB "
            f"of msgspec msgpack); best of {rounds}, spread = worst/best - 1. zebrapack decodes into the "
            "classes generated from the schema (as `zebrapack.load` makes them: records holding no "
            "containers are not GC-tracked, as msgspec's Structs), into the user's own slots "
            "dataclasses (`schema_from_dataclasses`), which the collector tracks, and into the user's "
            "slots dataclasses deriving from `zebrapack.Record`, which it does not.\n\n"
            + markdown_table(["decode", "time", "per record", "spread"], rows)
            + f"\n\nratio zebrapack/msgspec: GC on {versus('zebrapack decode_all', 'on'):.2f}, "
            f"GC off {versus('zebrapack decode_all', 'off'):.2f}; into user dataclasses: GC on "
            f"{versus('zebrapack decode_all into user dataclasses', 'on'):.2f}, GC off "
            f"{versus('zebrapack decode_all into user dataclasses', 'off'):.2f}; into user dataclasses "
            f"deriving from zebrapack.Record: GC on {versus(ON_RECORD, 'on'):.2f}, GC off "
            f"{versus(ON_RECORD, 'off'):.2f}.")


def _peak(function: Callable[[], Any]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def iter_decode_section(options: Options, schema: Any, plain: list[A]) -> str:
    count = len(plain)
    with tempfile.TemporaryDirectory() as tmp:
        zp_path, mp_path = Path(tmp) / "a.zpk", Path(tmp) / "a.msgpack"
        block_zp = b"".join(schema.encode(r) for r in plain[:BLOCK])
        block_mp = b"".join(msgpack.packb({"Name": r.Name, "Bday": r.Bday, "Phone": r.Phone, "Sibs": r.Sibs,
                                           "GPA": r.GPA, "Friend": r.Friend}, datetime=True)
                            for r in plain[:BLOCK])
        repeat = count // min(count, BLOCK)
        zp_path.write_bytes(block_zp * repeat)
        mp_path.write_bytes(block_mp * repeat)
        total = repeat * min(count, BLOCK)

        def zp_iter() -> int:
            with open(zp_path, "rb") as f:
                return sum(1 for _ in schema.iter_decode(f))

        def mp_iter() -> int:
            read = 0
            with open(mp_path, "rb") as f:
                for d in msgpack.Unpacker(f, timestamp=3):
                    A(**d)
                    read += 1
            return read

        assert zp_iter() == total == mp_iter()
        rounds = max(1, min(options.rounds, 3))
        times: dict[str, list[float]] = {"zp": [], "mp": []}
        for _ in range(rounds):
            times["zp"].append(_seconds(zp_iter, gc_on=True))
            times["mp"].append(_seconds(mp_iter, gc_on=True))
        peaks = {"zp": _peak(zp_iter), "mp": _peak(mp_iter)}
        size = zp_path.stat().st_size
    rows = [["zebrapack iter_decode(file)", *_fmt_times(times["zp"], total), f"{peaks['zp'] / 1024:,.0f} KiB"],
            ["msgpack Unpacker(file) + A(**d)", *_fmt_times(times["mp"], total), f"{peaks['mp'] / 1024:,.0f} KiB"]]
    return (f"{total:,} records from a {size / 1e6:.1f} MB file (chunk 64 KiB), GC on, best of {rounds}; "
            "peak = tracemalloc's peak over a whole separate pass, records dropped as read.\n\n"
            + markdown_table(["read", "time", "per record", "spread", "peak memory"], rows))


def append_section(options: Options) -> str:
    largest = options.sizes.get("append_n", 32000)
    rounds = max(1, min(options.rounds, 3))
    counts = [str(largest // 4), str(largest // 2), str(largest)]
    # Fresh interpreters (see _appends): one per run, or one for everything in a quick run.
    batches = [counts] if options.quick else [[n] for n in counts for _ in range(rounds)]
    times: dict[str, dict[str, list[float]]] = {n: {} for n in counts}
    for batch in batches:
        child = subprocess.run([sys.executable, "-m", "benchmarks._appends", *batch], check=True,
                               capture_output=True, text=True, cwd=Path(__file__).resolve().parent.parent)
        for n, results in json.loads(child.stdout).items():
            for name, seconds in results.items():
                times[n].setdefault(name, []).append(seconds)
    rows = [[f"{name}, {int(n):,} records", *_fmt_times(values, int(n))]
            for n in counts for name, values in times[n].items()]
    return (f"Appending A records one by one (to /dev/null through the writer's 64 KiB buffer, or into one "
            f"growing bytearray), GC on, best of {rounds}, each run in a fresh interpreter. A per-record "
            "time that grows with the count is a cost proportional to the buffer already written.\n\n"
            + markdown_table(["append", "time", "per record", "spread"], rows))


def _held_bytes(function: Callable[[], Any]) -> tuple[int, Any]:
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = function()
        return tracemalloc.get_traced_memory()[0] - before, result
    finally:
        tracemalloc.stop()


def memory_section(schema: Any, plain: list[A], structs: list[Any]) -> str:
    records = plain[:BLOCK]
    count = len(records)
    zp_stream = b"".join(schema.encode(r) for r in records)
    struct_array = msgspec.msgpack.encode(structs[:count])
    plain_array = msgspec.msgpack.encode(records)
    mp_stream = msgpack.packb([{"Name": r.Name, "Bday": r.Bday, "Phone": r.Phone, "Sibs": r.Sibs, "GPA": r.GPA,
                                "Friend": r.Friend} for r in records], datetime=True)
    generated = generated_schema()
    on_record = record_schema(schema)
    decoders = {
        "zebrapack decode_all (generated classes)": lambda: generated.decode_all(zp_stream),
        "zebrapack decode_all (user dataclasses)": lambda: schema.decode_all(zp_stream),
        "zebrapack decode_all (user dataclasses on zebrapack.Record)": lambda: on_record.decode_all(zp_stream),
        "msgspec list[Struct]": lambda: msgspec.msgpack.Decoder(list[_structs.A]).decode(struct_array),
        "msgspec list[dataclass]": lambda: msgspec.msgpack.Decoder(list[A]).decode(plain_array),
        "msgpack unpackb + A(**d)": lambda: [A(**d) for d in msgpack.unpackb(mp_stream, timestamp=3)],
    }
    rows = []
    for name, function in decoders.items():
        held, result = _held_bytes(function)
        one = result[0]
        rows.append([name, f"{held / count:.0f}", str(sys.getsizeof(one)), "yes" if gc.is_tracked(one) else "no"])
        del result, one
    return (f"Memory held by {count:,} decoded A records (tracemalloc: list + instances + their str, "
            "datetime and float objects), per record; instance = the object itself with its GC header.\n\n"
            + markdown_table(["decoded by", "bytes per record", "instance bytes", "GC-tracked"], rows))


def _mp_stream(records: list[A]) -> bytes:
    """The records as msgpack maps keyed by field name (what msgpack-python users write)."""
    return b"".join(msgpack.packb({"Name": r.Name, "Bday": r.Bday, "Phone": r.Phone, "Sibs": r.Sibs, "GPA": r.GPA,
                                   "Friend": r.Friend}, datetime=True) for r in records)


def _fed(decoder: Any, data: bytes, piece: int) -> list[Any]:
    """Feed data in pieces (memoryview slices, no copies of ours), taking each piece's records."""
    view = memoryview(data)
    records: list[Any] = []
    for start in range(0, len(data), piece):
        decoder.feed(view[start:start + piece])
        records.extend(decoder)
    decoder.close()
    return records


def _unpacked(data: bytes, piece: int) -> list[A]:
    view = memoryview(data)
    unpacker = msgpack.Unpacker(timestamp=3, max_buffer_size=1 << 30)
    records: list[A] = []
    for start in range(0, len(data), piece):
        unpacker.feed(view[start:start + piece])
        records.extend(A(**d) for d in unpacker)
    return records


def _timed_rounds(contenders: dict[str, Callable[[], Any]], rounds: int) -> dict[str, Timing]:
    """Seconds of one call of each contender, round by round, interleaved, GC on."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, function in contenders.items():
            times[name].append(_seconds(function, gc_on=True))
    return {name: Timing(values) for name, values in times.items()}


def push_section(options: Options, schema: Any, plain: list[A]) -> str:
    """The push decoder fed 1 KiB and 64 KiB pieces, against decode_all and msgpack's Unpacker.feed."""
    count = len(plain)
    block = plain[:min(count, BLOCK)]
    repeat = count // len(block)
    zp_stream = b"".join(schema.encode(r) for r in block) * repeat
    mp_stream = _mp_stream(block) * repeat
    generated = generated_schema()
    assert [dataclasses.astuple(r) for r in _fed(generated.stream_decoder(), zp_stream, 1024)[:50]] == [
        dataclasses.astuple(r) for r in plain[:50]]
    assert _unpacked(mp_stream[:100_000], 1024)[:20] == plain[:20]
    assert _fed(schema.stream_decoder(), zp_stream, 1 << 16)[:50] == plain[:50]
    contenders: dict[str, Callable[[], Any]] = {"decode_all": lambda: generated.decode_all(zp_stream)}
    for piece, label in ((1 << 10, "1 KiB"), (1 << 16, "64 KiB")):
        contenders[f"stream_decoder, {label}"] = lambda piece=piece: _fed(generated.stream_decoder(), zp_stream, piece)
        contenders[f"stream_decoder into user dataclasses, {label}"] = (
            lambda piece=piece: _fed(schema.stream_decoder(), zp_stream, piece))
        contenders[f"msgpack Unpacker.feed + A(**d), {label}"] = lambda piece=piece: _unpacked(mp_stream, piece)
    rounds = max(1, min(options.rounds, 3))
    timings = _timed_rounds(contenders, rounds)
    rows = [[name, *_fmt_times(timing.rounds, count)] for name, timing in timings.items()]
    ratios = []
    for label in ("1 KiB", "64 KiB"):
        ratios.append(f"{label}: {ratio(timings[f'stream_decoder, {label}'], timings['decode_all'])} of "
                      "decode_all; into user dataclasses "
                      f"{ratio(timings[f'stream_decoder into user dataclasses, {label}'], timings[f'msgpack Unpacker.feed + A(**d), {label}'])} "
                      "of msgpack-python's time")
    return (f"{count:,} records, {len(zp_stream) / 1e6:.1f} MB of zebrapack ({len(mp_stream) / 1e6:.1f} MB as msgpack "
            "maps keyed by name), fed in pieces (memoryview slices) with each piece's records taken into a list; "
            "decode_all of the same bytes into the generated classes; msgpack-python's Unpacker fed the same way "
            f"building the user's dataclasses. GC on, best of {rounds}, interleaved.\n\n"
            + markdown_table(["read", "time", "per record", "spread"], rows)
            + "\n\nratio, median (range) over the rounds: " + "; ".join(ratios) + ".")


def large_record_section(options: Options) -> str:
    """One large record (a list of A) fed in 64 KiB pieces, against decode of it whole."""
    megabytes = options.sizes.get("record_mb", 22)
    schema = shapes_schema()
    rng = random.Random(SEED)
    item = [A(**a_values(rng)) for _ in range(BLOCK)]
    item_size = len(schema.encode(As(V=item))) / BLOCK
    values = item * max(1, int(megabytes * 1e6 / item_size) // BLOCK)
    record = schema.encode(As(V=values))
    del values
    assert _fed(schema.stream_decoder(), record, 1 << 16)[0].V[:20] == item[:20]
    rounds = max(1, min(options.rounds, 3))
    timings = _timed_rounds({"decode": lambda: schema.decode(record),
                             "stream_decoder, 64 KiB pieces": lambda: _fed(schema.stream_decoder(), record, 1 << 16)},
                            rounds)
    rows = [[name, f"{timing.best:.3f} s", f"{timing.spread:.0%}"] for name, timing in timings.items()]
    return (f"One record of {len(record) / 1e6:.1f} MB (`As`: a list of {len(record) // int(item_size):,} `A`), "
            f"fed in 64 KiB pieces, against `decode` of it whole; GC on, best of {rounds}, interleaved.\n\n"
            + markdown_table(["read", "time", "spread"], rows)
            + f"\n\nratio, median (range): {ratio(timings['stream_decoder, 64 KiB pieces'], timings['decode'])}.")


def run(options: Options) -> str:
    """Every stream section, as markdown."""
    schema = shapes_schema()
    record_size = len(schema.encode(A(**a_values(random.Random(SEED)))))
    count = max(10, options.sizes.get("stream_kb", 100_000) * 1000 // record_size)
    if count > BLOCK:
        count -= count % BLOCK
    plain, structs = _records(count)
    sections = [
        ("decode_all", decode_all_section(options, schema, plain, structs)),
        ("iter_decode from a file", iter_decode_section(options, schema, plain)),
        ("Appends", append_section(options)),
        ("Bytes per decoded record", memory_section(schema, plain, structs)),
        ("Push decoder: the stream in pieces", push_section(options, schema, plain)),
        ("Push decoder: one large record in pieces", large_record_section(options)),
    ]
    return "\n\n".join(f"### {title}\n\n{body}" for title, body in sections) + f"\n\n{machine()}"


def main(argv: Sequence[str] | None = None) -> str:
    options = parse_options(argv, __doc__.splitlines()[0])
    text = run(options)
    emit("Streams of A records", text, options, "streams.md")
    return text


if __name__ == "__main__":
    main()
