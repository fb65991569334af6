"""The atheris (libFuzzer) fuzzers of the decoder and encoder, and of schemas.

    python tests/fuzz/run_atheris.py [--target=decode|load|stream|arrow] [libFuzzer options] [CORPUS_DIR ...]

``decode`` (the default): each input goes through decode_target.check_input:
decoded with every vector schema, only DecodeError may escape, and what
decodes must re-encode and decode to the same value. ``arrow``:
arrow_target.check_arrow, the same inputs through the columnar reader (needs pyarrow). ``load`` and ``stream``:
schema_target.check_load / check_stream: the input is a schema (raw ``.z``
bytes, or a recipe building a schema document) or a stream carrying one, and
only SchemaError / DecodeError may escape. Without a corpus folder, new inputs
go to a fresh temporary folder; the seeds are always the target's committed
inputs (tests/fuzz/corpus/ and crashers/ for decode, tests/fuzz/<target>/
otherwise) and the vectors. Examples (a finding is written as crash-<sha1>:
commit it to the target's folder, where the normal test suite replays it):

    python tests/fuzz/run_atheris.py -max_total_time=60            # CI's short pass
    python tests/fuzz/run_atheris.py --target=load -max_total_time=60
    python tests/fuzz/run_atheris.py -runs=1000000 -print_final_stats=1 /tmp/zp-corpus

The Cython core is not instrumented in an ordinary build, so libFuzzer steers
by the Python code's coverage only; build the core with clang and
CFLAGS="-fsanitize=fuzzer-no-link,address" (see docs/sanitizers-and-fuzzing.md) for coverage and
AddressSanitizer inside it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

FUZZ = Path(__file__).resolve().parent
VECTORS = FUZZ.parent / "vectors"
RECORD_SEEDS = sorted(p for p in VECTORS.iterdir() if p.is_dir() and p.name != "schemas")
#: Each target's seed folders: its committed inputs, then the vectors it reads.
SEED_FOLDERS = {
    "decode": [FUZZ / "corpus", *RECORD_SEEDS],
    "load": [FUZZ / "load", VECTORS / "schemas"],
    "stream": [FUZZ / "stream", VECTORS / "schemas"],
    "arrow": [FUZZ / "corpus", *RECORD_SEEDS],
}

with atheris.instrument_imports():
    import zebrapack  # noqa: F401 - instrumented for coverage

sys.path.insert(0, str(FUZZ))
from decode_target import check_input, configs  # noqa: E402
from schema_target import check_load, check_stream  # noqa: E402

TARGETS = {"decode": check_input, "load": check_load, "stream": check_stream}


def check_arrow(data: bytes) -> None:
    from arrow_target import check_arrow as check     # pyarrow only for this target
    check(data)


TARGETS["arrow"] = check_arrow


def main() -> None:
    configs()                           # load the schemas before fuzzing starts
    target = "decode"
    arguments = sys.argv[:1]
    folders = []
    for argument in sys.argv[1:]:
        if argument.startswith("--target="):
            target = argument.partition("=")[2]
            if target not in TARGETS:
                raise SystemExit(f"unknown target {target!r}: one of {', '.join(TARGETS)}")
        elif argument.startswith("-"):
            arguments.append(argument)
        else:
            folders.append(argument)
    folders = folders or [tempfile.mkdtemp(prefix=f"zp-{target}-corpus-")]
    atheris.Setup(arguments + folders + [str(folder) for folder in SEED_FOLDERS[target]], TARGETS[target])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
