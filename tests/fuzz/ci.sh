#!/usr/bin/env bash
# The short fuzz pass CI runs: every target (decode, load, stream) for about a
# minute, so that regressions show in CI; long campaigns stay out of it (see
# docs/sanitizers-and-fuzzing.md).
# Usage: tests/fuzz/ci.sh PYTHON
set -euo pipefail
python="$1"
case "$python" in */*) python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")" ;; esac
cd "$(dirname "$0")"
for target in decode load stream arrow; do
    log="$(mktemp)"
    "$python" run_atheris.py --target="$target" -max_total_time=50 -max_len=4096 \
        -artifact_prefix="$(dirname "$log")/zp-$target-" >"$log" 2>&1 \
        || { echo "fuzz target $target failed:"; tail -n 60 "$log"; exit 1; }
    echo "$target: $(tail -n 1 "$log")"
done
