#!/usr/bin/env bash
# The short fuzz pass CI runs (each target about a minute): decoder regressions
# show in CI, long campaigns stay out of it (see the README's Fuzzing section).
# Usage: tests/fuzz/ci.sh PYTHON
set -euo pipefail
python="$1"
cd "$(dirname "$0")"
log="$(mktemp)"
"$python" run_atheris.py -max_total_time=60 -max_len=4096 -artifact_prefix="$(dirname "$log")/" >"$log" 2>&1 \
    || { tail -n 60 "$log"; exit 1; }
tail -n 1 "$log"
