"""Benchmarks: ``python -m benchmarks.bench_decode`` and ``python -m benchmarks.bench_encode``."""
