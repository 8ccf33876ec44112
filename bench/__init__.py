"""Benchmarks for ``make bench``: ratios against llama.cpp measured in the same run."""
