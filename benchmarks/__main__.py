"""Every benchmark, with the markdown tables and the chart written to a directory.

    python -m benchmarks [--quick] [--rounds R] [--best-of N] [--out DIR] [--skip-streams]

Runs ``bench_decode``, ``bench_encode`` and ``bench_streams`` in one process and
writes ``DIR/results.md`` (all the tables, machine and versions) and
``DIR/ratios.png`` (zebrapack / msgspec.Struct per shape, decode and encode, a
line at 1.0). DIR defaults to benchmarks/results.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Sequence

from . import _compare, bench_streams
from ._harness import RESULTS_DIR, emit, parse_options


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    skip_streams = "--skip-streams" in args
    options = parse_options([a for a in args if a != "--skip-streams"], __doc__.splitlines()[0])
    out = options.out or RESULTS_DIR
    printed = dataclasses.replace(options, out=None)    # the parts are printed; results.md has them all
    decode_rows = _compare.run("decode", options)
    sections = [("Decode per shape", _compare.report("decode", decode_rows, printed))]
    encode_rows = _compare.run("encode", options)
    sections.append(("Encode per shape", _compare.report("encode", encode_rows, printed)))
    if not skip_streams:
        streams = bench_streams.run(options)
        emit("Streams of A records", streams, printed, "streams.md")
        sections.append(("Streams of A records", streams))
    chart = out / "ratios.png"
    _compare.chart(decode_rows, encode_rows, chart)
    body = "\n\n".join(f"## {title}\n\n{text}" for title, text in sections)
    (out / "results.md").write_text(f"# zebrapack benchmarks\n\n![ratios]({chart.name})\n\n{body}\n",
                                    encoding="utf-8")
    print(f"wrote {out / 'results.md'} and {chart}")


if __name__ == "__main__":
    main()
