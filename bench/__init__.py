"""Benchmarks: each ``bench/bench_*.py`` module exposes ``main()``. Run all with ``make bench``."""
