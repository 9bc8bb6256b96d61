#!/usr/bin/env python3
"""kill -9 torture of print mode: pass 1 and pass 2 of one call after another, each killed with
SIGKILL after a random delay, then checked and retried. Reports lost answers (answers neither in
the pending file nor in the session log after a kill), torn files (a pending file or log line
that does not parse), calls with more or fewer than one record, and wrong results on retry.

Usage: bench/torture.py [--iterations N] [--bin PATH] [--seed S]
Use a build without failpoints (release, or `--profile bench`).
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "project-setup.json")
PENDING = os.path.join(".pi", "pending-questions.json")
ENV = dict(os.environ, ASK_USER_NO_TTY="1")
ENV.pop("ASK_USER_FAILPOINT", None)


def run(argv, cwd):
    return subprocess.run(argv, cwd=cwd, env=ENV, stdin=subprocess.DEVNULL,
                          capture_output=True, check=False)


def run_killed(argv, cwd, delay):
    """Starts argv and sends SIGKILL after `delay` seconds; True if the kill landed."""
    child = subprocess.Popen(argv, cwd=cwd, env=ENV, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return child.wait() == -signal.SIGKILL


def median_seconds(argv, cwd, setup, runs=15):
    samples = []
    for _ in range(runs):
        setup()
        start = time.perf_counter()
        run(argv, cwd)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def pending(work):
    """The pending file: None when absent, "torn" when it does not parse, else its JSON."""
    try:
        with open(os.path.join(work, PENDING), "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return "torn"


def log_records(work):
    """(records by call id, torn lines) of the session log."""
    by_id, torn = {}, 0
    try:
        with open(os.path.join(work, "s.jsonl"), "rb") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    torn += 1
                    continue
                by_id.setdefault(record.get("callId"), []).append(record)
    except FileNotFoundError:
        pass
    return by_id, torn


def answer_file(work, name):
    """Writes the answers into the pending file, as a person editing it would."""
    path = os.path.join(work, PENDING)
    with open(path) as f:
        data = json.load(f)
    data["questions"][0]["answer"] = "SQLite"
    data["questions"][1]["answer"] = name
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=10_000)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ask-user"))
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="ask-user-torture-")
    binary = args.bin

    def pass_one(call_id):
        return [binary, "-p", "--session", "s.jsonl", "--call-id", call_id, EXAMPLE]

    def pass_two(call_id):
        return [binary, "-c", "--session", "s.jsonl", "--call-id", call_id]

    # Kill delays are drawn from 0 to 1.5× the median duration of each pass, so that kills land
    # at every step, including after the process is done.
    clear = lambda: shutil.rmtree(os.path.join(work, ".pi"), ignore_errors=True)  # noqa: E731
    t1 = median_seconds(pass_one("warm"), work, clear)
    clear()

    def fresh_answered():
        clear()
        run(pass_one("warm-2"), work)
        answer_file(work, "warm")

    t2 = median_seconds([binary, "-c"], work, fresh_answered)
    clear()
    counts = dict(pass1_kills=0, pass2_kills=0, lost=0, torn_pending=0, torn_log=0,
                  wrong_result=0, retry_not_pending=0, duplicate_records=0, missing_records=0)
    started = time.perf_counter()
    for i in range(args.iterations):
        call_id = f"c{i}"
        name = f"service-{i}"
        # Pass 1, killed at a random moment, then retried until it reports pending.
        counts["pass1_kills"] += run_killed(pass_one(call_id), work, rng.uniform(0, 1.5 * t1))
        state = pending(work)
        if state == "torn":
            counts["torn_pending"] += 1
            clear()
        retry = run(pass_one(call_id), work)
        if retry.returncode != 4:
            counts["retry_not_pending"] += 1
            clear()
            continue
        answer_file(work, name)
        # Pass 2, killed at a random moment: the answers must be in the file or in the log.
        counts["pass2_kills"] += run_killed(pass_two(call_id), work, rng.uniform(0, 1.5 * t2))
        state = pending(work)
        by_id, torn = log_records(work)
        if state == "torn":
            counts["torn_pending"] += 1
        in_file = isinstance(state, dict) and (
            (state.get("answered") or {}).get("answers", [{}, {}])[1].get("answer") == name
            or state["questions"][1]["answer"] == name)
        in_log = any(r["answers"][1]["answer"] == name for r in by_id.get(call_id, []))
        if not (in_file or in_log):
            counts["lost"] += 1
        # The retry delivers the answers.
        retry = run(pass_two(call_id), work)
        try:
            result = json.loads(retry.stdout)
            if retry.returncode != 0 or result["answers"][1]["answer"] != name:
                counts["wrong_result"] += 1
        except ValueError:
            counts["wrong_result"] += 1
        if pending(work) is not None:
            clear()
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} iterations, {time.perf_counter() - started:.0f} s: {counts}",
                  file=sys.stderr)
    by_id, torn = log_records(work)
    counts["torn_log"] = torn
    for i in range(args.iterations):
        n = len(by_id.get(f"c{i}", []))
        counts["duplicate_records"] += n > 1
        counts["missing_records"] += n == 0
    counts["iterations"] = args.iterations
    counts["seconds"] = round(time.perf_counter() - started)
    counts["pass1_median_ms"] = round(t1 * 1000, 2)
    counts["pass2_median_ms"] = round(t2 * 1000, 2)
    shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(counts))
    bad = counts["lost"] + counts["torn_pending"] + counts["torn_log"] + counts["wrong_result"] \
        + counts["duplicate_records"] + counts["missing_records"] + counts["retry_not_pending"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
