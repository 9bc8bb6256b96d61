#!/usr/bin/env python3
"""Whole-process figures under load: a replay from a 100,000-record session log, and an RPC
flood of 4,000,000 bad lines. Each reports the median wall time and the peak RSS of the
ask-user process itself (wait4), never of this script.

Usage: bench/faults.py [--runs N] [--bin PATH] [--records N] [--lines N] [--json]
Build first (`cargo xtask bench` does); docs/benchmarks.md says which build the table used.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "project-setup.json")


def run_measured(argv, stdin=subprocess.DEVNULL, cwd=None):
    """Runs argv once; returns (wall ms, peak RSS KiB, exit code) of that process alone."""
    env = dict(os.environ, ASK_USER_NO_TTY="1")
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdin=stdin,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    child.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, child.returncode


def write_log(path, records):
    """A session log of `records` answered print-mode calls (about 730 bytes each)."""
    with open(EXAMPLE) as f:
        call = json.load(f)
    questions = call["questions"]
    with open(path, "w") as log:
        for i in range(records):
            record = {
                "callId": f"toolu_{i:08}",
                "questions": questions,
                "answers": [
                    {"question": questions[0]["question"], "answer": "SQLite",
                     "selectedOption": "SQLite", "wasCustom": False},
                    {"question": questions[1]["question"], "answer": f"service-{i}",
                     "wasCustom": True},
                ],
                "answeredAt": 1795402271256 + i,
                "mode": "print",
                "metadata": {"source": "bench", "padding": "x" * 120},
                "status": "answered",
            }
            log.write(json.dumps(record, separators=(",", ":")) + "\n")


def replay(binary, runs, records):
    """Median ms and max peak RSS (KiB) of replaying the last call of a `records`-record log."""
    work = tempfile.mkdtemp(prefix="ask-user-replay-")
    log = os.path.join(work, "s.jsonl")
    write_log(log, records)
    size = os.path.getsize(log)
    last = f"toolu_{records - 1:08}"
    argv = [binary, "-p", "--session", log, "--call-id", last, EXAMPLE]
    samples, peaks = [], []
    for _ in range(runs):
        ms, rss, code = run_measured(argv, cwd=work)
        if code != 0:
            raise SystemExit(f"replay exited with {code}")
        samples.append(ms)
        peaks.append(rss)
    shutil.rmtree(work, ignore_errors=True)
    return statistics.median(samples), max(peaks), size


def flood(binary, lines):
    """Wall ms, peak RSS (KiB) and exit code of `--rpc` fed `lines` two-byte garbage lines."""
    work = tempfile.mkdtemp(prefix="ask-user-flood-")
    garbage = os.path.join(work, "flood.txt")
    with open(garbage, "wb") as f:
        chunk = b"x\n" * 1_000_000
        for _ in range(lines // 1_000_000):
            f.write(chunk)
        f.write(b"x\n" * (lines % 1_000_000))
    with open(garbage, "rb") as stdin:
        ms, rss, code = run_measured([binary, "--rpc", EXAMPLE], stdin=stdin, cwd=work)
    shutil.rmtree(work, ignore_errors=True)
    return ms, rss, code


def figures(binary, runs, records=100_000, lines=4_000_000):
    """The figures the benchmark table reports."""
    replay_ms, replay_kib, log_bytes = replay(binary, runs, records)
    flood_ms, flood_kib, flood_code = flood(binary, lines)
    return {
        "replay_ms": replay_ms,
        "replay_peak_kib": replay_kib,
        "log_bytes": log_bytes,
        "flood_ms": flood_ms,
        "flood_peak_kib": flood_kib,
        "flood_exit": flood_code,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ask-user"))
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--lines", type=int, default=4_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = figures(args.bin, args.runs, args.records, args.lines)
    if args.json:
        print(json.dumps(result))
        return
    print(f"replay from a {args.records:,}-record log ({result['log_bytes'] / 1e6:.0f} MB): "
          f"{result['replay_ms']:.1f} ms median, peak RSS {result['replay_peak_kib'] / 1024:.1f} MiB")
    print(f"RPC flood of {args.lines:,} bad lines: {result['flood_ms']:.0f} ms, "
          f"peak RSS {result['flood_peak_kib'] / 1024:.1f} MiB, exit {result['flood_exit']}")


if __name__ == "__main__":
    main()
