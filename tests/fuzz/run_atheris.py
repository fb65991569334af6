"""The atheris (libFuzzer) fuzzer of the decoder and encoder.

    python tests/fuzz/run_atheris.py [libFuzzer options] [CORPUS_DIR ...]

Each input goes through decode_target.check_input: decoded with every vector
schema, only DecodeError may escape, and what decodes must re-encode and
decode to the same value. Without a corpus folder, new inputs go to a fresh
temporary folder; the seeds are always tests/fuzz/corpus/ and the vectors.
Examples (a finding is written as crash-<sha1>: commit it to
tests/fuzz/crashers/, where the normal test suite replays it):

    python tests/fuzz/run_atheris.py -max_total_time=60            # CI's short pass
    python tests/fuzz/run_atheris.py -runs=1000000 -print_final_stats=1 /tmp/zp-corpus

The Cython core is not instrumented in an ordinary build, so libFuzzer steers
by the Python code's coverage only; build the core with clang and
CFLAGS="-fsanitize=fuzzer-no-link,address" (see the README) for coverage and
AddressSanitizer inside it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

FUZZ = Path(__file__).resolve().parent
SEED_FOLDERS = [FUZZ / "corpus", *sorted(p for p in (FUZZ.parent / "vectors").iterdir() if p.is_dir() and p.name != "schemas")]

with atheris.instrument_imports():
    import zebrapack  # noqa: F401 - instrumented for coverage

sys.path.insert(0, str(FUZZ))
from decode_target import check_input, configs  # noqa: E402


def main() -> None:
    configs()                           # load the schemas before fuzzing starts
    arguments = sys.argv[:1] + [a for a in sys.argv[1:] if a.startswith("-")]
    folders = [a for a in sys.argv[1:] if not a.startswith("-")] or [tempfile.mkdtemp(prefix="zp-corpus-")]
    atheris.Setup(arguments + folders + [str(folder) for folder in SEED_FOLDERS], check_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
