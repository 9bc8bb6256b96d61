#!/usr/bin/env python3
"""Whole-process timings of the ask-user binary: median over repeated runs.

Usage: bench/process.py [--runs N] [--bin PATH]
Build first with `cargo build --release -p ask-cli`.
"""
import argparse
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_ms(argv, runs, stdin=None):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ask-user"))
    args = parser.parse_args()
    example = os.path.join(ROOT, "examples", "project-setup.json")
    rows = [
        ("ask-user validate (valid call)", [args.bin, "validate", example]),
        ("ask-user validate (invalid call)", [args.bin, "validate", os.path.join(ROOT, "examples", "invalid", "unknown-field.json")]),
        ("/bin/true (process floor)", ["/bin/true"]),
    ]
    print(f"{'what':40} {'median ms':>10}")
    for name, argv in rows:
        print(f"{name:40} {median_ms(argv, args.runs):10.2f}")


if __name__ == "__main__":
    main()
