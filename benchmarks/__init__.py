"""Benchmarks against msgspec (Struct and dataclass modes) and msgpack-python.

    python -m benchmarks                 # all, writing benchmarks/results/{results.md,ratios.png}
    python -m benchmarks.bench_decode    # per record shape, decode
    python -m benchmarks.bench_encode    # per record shape, encode
    python -m benchmarks.bench_streams   # decode_all, iter_decode, appends, bytes per record, push decoder
    python -m benchmarks.profile_shape SHAPE decode|encode   # a loop for perf
    python -m benchmarks.decode_floor    # a record decode's Python objects alone, in instructions

Each takes ``--quick`` for a smoke run; see docs/performance.md for the method.
"""
