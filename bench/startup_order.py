#!/usr/bin/env python3
"""Writes `ask-cli/startup-order.txt`: the functions of `ask-user` that its short commands and
the terminal UI's first frame run, for the linker to place together (see `ask-cli/build.rs`).

Usage: bench/startup_order.py [--bin PATH]   (default: target/dist/ask-user; needs valgrind)

The kernel maps a program's code in blocks of up to 64 KiB around each page first touched, so
the few hundred KB of code that start-up runs cost as many blocks as they are spread over: in a
binary laid out by crate, about 45 blocks (2.8 MiB resident and as many page faults) for
`validate`. Each command below runs once under callgrind, which lists every function executed;
the union of those defined in the binary is written one mangled name per line, grouped by the
commands that run each function (`validate`'s first, then the terminal UI's), so that a short
command touches as few blocks as its own code needs. The names carry the hashes of the
toolchain and of each crate's version, so the file is regenerated after a toolchain or
dependency update, and after a change of the code that start-up runs (a name that no longer
exists is skipped by the linker: the binary stays correct, only less compact).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pty_time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "ask-cli", "startup-order.txt")
EXAMPLE = os.path.join(ROOT, "examples", "project-setup.json")
FUNCTION = re.compile(r"^c?fn=\(\d+\) (.+)$")


def callgrind(argv, work, name, **kwargs):
    """Runs argv under callgrind and returns the names of the functions it executed."""
    out = os.path.join(work, f"{name}.callgrind")
    command = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}"] + argv
    if kwargs.pop("pty", False):
        pty_time.first_frame_and_exit(command, kwargs.pop("marker"), timeout=120.0)
    else:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False, **kwargs)
    names = set()
    with open(out) as f:
        for line in f:
            match = FUNCTION.match(line.rstrip("\n"))
            if match:
                names.add(match.group(1))
    return names


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "dist", "ask-user"))
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind is missing (Debian's valgrind)")
    binary = os.path.abspath(args.bin)
    work = tempfile.mkdtemp(prefix="ask-user-order-")
    fifty = os.path.join(work, "fifty.json")
    with open(fifty, "w") as f:
        json.dump({"questions": [{"question": "Which one?", "header": "Choice", "options": [
            {"label": f"Option {i:02}"} for i in range(1, 51)]}]}, f)
    four = os.path.join(work, "four.json")
    with open(four, "w") as f:
        json.dump({"questions": [{"question": "Which database?", "header": "Database", "options": [
            {"label": f"Choice {i}", "description": f"What choice {i} means"}
            for i in range(1, 5)]}]}, f)
    pending = os.path.join(work, ".pi", "pending-questions.json")

    runs = {}
    runs["version"] = callgrind([binary, "--version"], work, "version")
    runs["help"] = callgrind([binary, "--help"], work, "help")
    # Agents' calls usually say `multiSelect`: its reader is start-up code too.
    multi = os.path.join(work, "multi.json")
    with open(multi, "w") as f:
        json.dump({"questions": [
            {"question": f"Question {q}?", "header": f"Q{q}", "multiSelect": q % 2 == 0,
             "options": [{"label": f"Choice {q}.{o}", "description": f"What choice {o} means"}
                         for o in range(1, 5)]}
            for q in range(1, 5)]}, f)
    runs["validate"] = (callgrind([binary, "validate", EXAMPLE], work, "validate")
                        | callgrind([binary, "validate", multi], work, "validate-multi"))
    runs["pass1"] = callgrind([binary, "-p", EXAMPLE], work, "pass1", cwd=work)
    with open(pending) as f:
        data = json.load(f)
    data["questions"][0]["answer"] = "SQLite"
    data["questions"][1]["answer"] = "orders"
    with open(pending, "w") as f:
        json.dump(data, f)
    runs["pass2"] = callgrind([binary, "-c"], work, "pass2", cwd=work)
    # The first frame, then Enter: the answer and the result line too (one question each, so
    # that one Enter ends the ask).
    runs["tui50"] = callgrind([binary, "--mode", "tui", "--no-notify", "--max-options", "50",
                               fifty], work, "tui50", pty=True, marker="Esc to cancel")
    runs["tui4"] = callgrind([binary, "--mode", "tui", four], work, "tui4", pty=True,
                             marker="Esc to cancel")
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True,
                             check=True).stdout
    address = {}
    for line in symbols.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            address.setdefault(parts[2], int(parts[0], 16))
    # Callgrind names the C start-up files' local functions (`frame_dummy`, …) by address.
    named = {f"0x{at:016x}": name for name, at in address.items()}
    for names in runs.values():
        names |= {named[name] for name in names if name in named}
    ran = set().union(*runs.values())
    # Grouped by the commands that run each function, so that the code of one command lies
    # together: first what `validate` runs (every command runs most of it), then the rest of
    # the terminal UI's first frame, then the other commands; within a group, in the binary's
    # own order, which keeps each crate's functions together.
    priority = ["validate", "tui50", "version", "pass1", "pass2", "tui4", "help"]
    ordered = sorted((name for name in ran if name in address),
                     key=lambda name: ([name not in runs[run] for run in priority], address[name]))
    # The entry point, which callgrind counts as "(below main)".
    ordered = ["_start"] + [name for name in ordered if name != "_start"]
    with open(OUT, "w") as f:
        f.write("".join(f"{name}\n" for name in ordered))
    shutil.rmtree(work, ignore_errors=True)
    print(f"{len(ordered)} functions written to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
