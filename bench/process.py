#!/usr/bin/env python3
"""Whole-process timings of the ask-user binary: the median over repeated runs.

Usage: bench/process.py [--runs N] [--bin PATH] [--json]
Build first with `cargo build --profile dist -p ask-user` (`cargo xtask bench` does both).
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


def median_ms(argv, runs, setup=None, cwd=None):
    """Median wall time of `argv` in milliseconds; `setup` runs untimed before each run."""
    samples = []
    env = dict(os.environ, ASK_USER_NO_TTY="1")
    for _ in range(runs):
        if setup:
            setup()
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


# The first messages an MCP client sends: the handshake, then the tool list.
MCP_OPENING = b"".join(json.dumps(m).encode() + b"\n" for m in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
])


def mcp_tools_list_ms(argv, runs):
    """Median milliseconds from starting an MCP server on stdio to its `tools/list` reply.

    The client writes the handshake and the tools/list request at once, as clients do on
    start, and stops the clock when the line answering request 2 arrives.
    """
    samples = []
    env = dict(os.environ, ASK_USER_NO_TTY="1")
    for _ in range(runs + 1):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        proc.stdin.write(MCP_OPENING)
        proc.stdin.flush()
        elapsed = None
        for line in proc.stdout:
            if json.loads(line).get("id") == 2:
                elapsed = (time.perf_counter() - start) * 1000
                break
        proc.stdin.close()
        proc.wait()
        if elapsed is None:
            raise RuntimeError(f"{argv[0]} gave no tools/list reply")
        samples.append(elapsed)
    # The first run only brings the binary into the page cache.
    return statistics.median(samples[1:])


def figures(binary, runs):
    """The whole-process medians that the benchmark table reports, in milliseconds."""
    work = tempfile.mkdtemp(prefix="ask-user-process-")
    pending = os.path.join(work, ".pi", "pending-questions.json")

    def clear():
        shutil.rmtree(os.path.join(work, ".pi"), ignore_errors=True)

    def answered_file():
        clear()
        subprocess.run([binary, "-p", EXAMPLE], cwd=work, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        with open(pending) as f:
            data = json.load(f)
        data["questions"][0]["answer"] = "SQLite"
        data["questions"][1]["answer"] = "orders"
        with open(pending, "w") as f:
            json.dump(data, f)

    result = {
        "validate": median_ms([binary, "validate", EXAMPLE], runs),
        "pass1": median_ms([binary, "-p", EXAMPLE], runs, setup=clear, cwd=work),
        "pass2": median_ms([binary, "-c"], runs, setup=answered_file, cwd=work),
        "mcp_tools_list": mcp_tools_list_ms([binary, "mcp"], runs),
    }
    shutil.rmtree(work, ignore_errors=True)
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "dist", "ask-user"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ask-user-bench-")
    pending = os.path.join(work, ".pi")

    def clear():
        shutil.rmtree(pending, ignore_errors=True)

    def pass_one():
        clear()
        subprocess.run([args.bin, "-p", EXAMPLE], cwd=work, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)

    rows = [
        ("validate (valid call)", median_ms([args.bin, "validate", EXAMPLE], args.runs)),
        ("validate (invalid call)", median_ms(
            [args.bin, "validate", os.path.join(ROOT, "examples", "invalid", "unknown-field.json")], args.runs)),
        ("-p (print pass 1)", median_ms([args.bin, "-p", EXAMPLE], args.runs, setup=clear, cwd=work)),
        ("--answers (print pass 2)", median_ms(
            [args.bin, "--answers", '["SQLite", "orders"]'], args.runs, setup=pass_one, cwd=work)),
        ("mcp: start to tools/list reply", mcp_tools_list_ms([args.bin, "mcp"], args.runs)),
        ("/bin/true (process floor)", median_ms(["/bin/true"], args.runs)),
    ]
    shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({name: round(ms, 3) for name, ms in rows}))
        return
    print(f"{'what':32} {'median ms':>10}")
    for name, ms in rows:
        print(f"{name:32} {ms:10.2f}")


if __name__ == "__main__":
    main()
