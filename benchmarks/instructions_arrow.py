"""Instructions per ``A`` record under callgrind: ``zebrapack.arrow`` beside Go's generated code.

    python -m benchmarks.instructions_arrow                  # 20,000 records
    python -m benchmarks.instructions_arrow --records 50000 --top 12

The load-independent side of ``bench_arrow``'s section against Go: the same seeded
``A`` records, ``zebrapack.arrow.read(...).read_all()`` into a ``pyarrow.Table`` and
``zebrapack.arrow.write`` of that table into a new ``BytesIO`` and into one reused
from its start (no growth: as Go's buffer; as ``bench_arrow`` times them), and tinylib/msgp's generated ``UnmarshalMsg`` (into a reused ``A`` and into new
ones) and ``MarshalMsg`` (``zpeer msgp-bench``, ``_gobench``), each counted by valgrind's
callgrind over one whole pass. Python runs as ``benchmarks.instructions`` runs it (each
pass between two ``zlib.crc32`` calls, ``--dump-before=zlib_crc32``, after a first
pass of each, ``PYTHONHASHSEED=0``); Go runs with ``GOMAXPROCS=1`` and
``GODEBUG=asyncpreemptoff=1`` (callgrind cannot follow Go's preemption signals), one
dump after each pass (``--dump-after``), a first ``MarshalMsg`` pass before the counted
ones. Go's garbage collector runs when it would: its cost is in the passes. ``--top N``
lists each pass's N functions of most self instructions. Needs valgrind and go on PATH.
"""

from __future__ import annotations

import argparse
import ast
import glob
import io
import os
import random
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

from . import _gobench
from .instructions import ROOT, Count, _functions

#: The passes, in the order each side runs them: (name, what it is).
ZEBRAPACK_PASSES = (("read", "zebrapack.arrow.read(...).read_all()"),
                    ("write", "zebrapack.arrow.write into a BytesIO"),
                    ("write-reused", "zebrapack.arrow.write into a reused BytesIO (no growth, as Go's buffer)"))
GO_PASSES = (("unmarshal-reused", "Go UnmarshalMsg, into a reused A"),
             ("unmarshal-new", "Go UnmarshalMsg, into a new A each (kept)"),
             ("marshal", "Go MarshalMsg, into a reused buffer"))
RATIOS = (("zebrapack.arrow.read / UnmarshalMsg into a reused A", "read", "unmarshal-reused", "≤ 0.4"),
          ("zebrapack.arrow.read / UnmarshalMsg into new A", "read", "unmarshal-new", ""),
          ("zebrapack.arrow.write / MarshalMsg", "write", "marshal", "≤ 1.0"),
          ("zebrapack.arrow.write into a reused BytesIO / MarshalMsg", "write-reused", "marshal", "≤ 1.0"))


def a_stream(count: int) -> bytes:
    """``count`` seeded ``A`` records, ZebraPack-encoded one after the other (as ``bench_arrow``)."""
    import zebrapack
    import zebrapack.examples

    from ._shapes import SEED, a_values
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    rng = random.Random(SEED)
    return b"".join(schema.encode(schema.types.A(**a_values(rng))) for _ in range(count))


def _child(path: str) -> None:
    """Under valgrind: one pass of each zebrapack operation, then each again between two
    crc32 calls; prints the names in the order counted."""
    import zebrapack
    import zebrapack.arrow as zpa
    import zebrapack.examples
    schema = zebrapack.load(zebrapack.examples.SCHEMA)
    stream = Path(path).read_bytes()
    table = zpa.read(stream, schema, "A").read_all()

    def write() -> bytes:
        out = io.BytesIO()
        zpa.write(table, out, schema, "A")
        return out.getvalue()
    if write() != stream:
        raise AssertionError("zebrapack.arrow.write does not give back the records read")
    sink = io.BytesIO()

    def write_reused() -> None:
        sink.seek(0)
        zpa.write(table, sink, schema, "A")
    write_reused()
    with sink.getbuffer() as view:
        if view != stream:
            raise AssertionError("zebrapack.arrow.write into a reused BytesIO does not give back the records read")
    passes: dict[str, Callable[[], object]] = {"read": lambda: zpa.read(stream, schema, "A").read_all(),
                                                "write": write, "write-reused": write_reused}
    for name, _ in ZEBRAPACK_PASSES:
        zlib.crc32(b"")
        passes[name]()
        zlib.crc32(b"")
    print(repr([name for name, _ in ZEBRAPACK_PASSES]))


def _dumps(out: str) -> list[str]:
    return sorted(glob.glob(out + ".*"), key=lambda path: int(path.rsplit(".", 1)[1]))


def _count(path: str, records: int, top: int) -> Count:
    with open(path, encoding="utf-8") as handle:
        total = next(int(line.split()[1]) for line in handle if line.startswith("summary:"))
    return Count(total // records, _functions(path, records, top) if top else [])


def measure(records: int, top: int = 0) -> dict[str, Count]:
    """Instructions per record of each pass (``ZEBRAPACK_PASSES`` and ``GO_PASSES``)."""
    stream = a_stream(records)
    counts: dict[str, Count] = {}
    with tempfile.TemporaryDirectory(prefix="zp-instructions-arrow-") as tmp:
        data = os.path.join(tmp, "a.zp")
        Path(data).write_bytes(stream)
        out = os.path.join(tmp, "py.out")
        child = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=zlib_crc32", "--compress-strings=no",
             f"--callgrind-out-file={out}", sys.executable, "-m", "benchmarks.instructions_arrow", "--child", data],
            capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"}, cwd=ROOT)
        if child.returncode != 0:
            raise RuntimeError(f"zebrapack.arrow under valgrind failed:\n{child.stderr[-3000:]}")
        order = ast.literal_eval(child.stdout.strip().splitlines()[-1])
        parts = _dumps(out)      # 1: before the first pass; then pass, gap, pass, gap
        counts.update({name: _count(parts[2 * i + 1], records, top) for i, name in enumerate(order)})

        binary = _gobench.build(Path(tmp))
        requests = [stream, b"marshal", *(name.encode() for name, _ in GO_PASSES)]
        frames = os.path.join(tmp, "frames")
        Path(frames).write_bytes(b"".join(map(_gobench.frame, requests)))
        out = os.path.join(tmp, "go.out")
        with open(frames, "rb") as stdin:
            go = subprocess.run(
                ["valgrind", "--tool=callgrind", "--compress-strings=no", f"--callgrind-out-file={out}",
                 "--dump-after=main.(*msgpBench).pass", str(binary), "msgp-bench"],
                stdin=stdin, capture_output=True,
                env={**os.environ, "GOMAXPROCS": "1", "GODEBUG": "asyncpreemptoff=1"})
        if go.returncode != 0:
            raise RuntimeError(f"zpeer msgp-bench under valgrind failed:\n{go.stderr.decode(errors='replace')[-3000:]}")
        parts = _dumps(out)      # 1: loading and the first marshal pass; then one per pass
        counts.update({name: _count(parts[i + 1], records, top) for i, (name, _) in enumerate(GO_PASSES)})
    return counts


def report(counts: dict[str, Count], records: int) -> str:
    labels = dict(ZEBRAPACK_PASSES + GO_PASSES)
    lines = [f"{records:,} A records; Go {_gobench.go_version()}, code generated by {_gobench.GENERATOR}.", "",
             "| pass | instructions per record |", "|---|---:|"]
    lines += [f"| {labels[name]} | {count.per_op:,} |" for name, count in counts.items()]
    lines += ["", "| ratio of instructions | value | target (issue 26, in time) |", "|---|---:|---:|"]
    lines += [f"| {label} | {counts[ours].per_op / counts[theirs].per_op:.2f} | {target} |"
              for label, ours, theirs, target in RATIOS]
    for name, count in counts.items():
        if count.functions:
            lines += ["", f"{labels[name]}: {count.per_op:,} instructions per record"]
            lines += [f"  {per:>8,}  {per / count.per_op:6.1%}  {function}" for function, per in count.functions]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--top", type=int, default=0, help="also list each pass's N costliest functions")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return ""
    text = report(measure(args.records, args.top), args.records)
    print(text)
    return text


if __name__ == "__main__":
    main()
