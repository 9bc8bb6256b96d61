#!/usr/bin/env python3
"""The benchmark table: ask-user next to its peers, each figure a median over repeated runs.

Run through `cargo xtask bench`, which builds everything with the dist profile first.
Usage: bench/run.py [--runs N]   (prints a Markdown table)
"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pty_time  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "target", "dist")
ASK_USER = os.path.join(RELEASE, "ask-user")
MINIMAL = os.path.join(RELEASE, "examples", "minimal_inline")
# Playwright for Python, for the page rows (bench/web_page.py); see docs/benchmarks.md.
VENV_PYTHON = os.path.join(ROOT, "target", "ci-venv", "bin", "python")
LABELS = [f"Option {i:02}" for i in range(1, 51)]


def ensure_fzf():
    """Debian's fzf, installed when missing (the peer of the list figures)."""
    if shutil.which("fzf"):
        return shutil.which("fzf")
    print("installing fzf (apt-get)...", file=sys.stderr)
    subprocess.run(["apt-get", "update", "-qq"], check=False, stdout=subprocess.DEVNULL)
    subprocess.run(["apt-get", "install", "-y", "-qq", "fzf"], check=False, stdout=subprocess.DEVNULL)
    return shutil.which("fzf")


def write_call(path, count):
    options = [{"label": label} for label in LABELS[:count]]
    if count == 4:
        options = [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
                   {"label": "SQLite", "description": "Lightweight, file-based"},
                   {"label": "MongoDB", "description": "Document store"},
                   {"label": "DynamoDB", "description": "Managed key-value store"}]
    call = {"questions": [{"question": "Which one should we use?", "header": "Choice", "options": options}]}
    with open(path, "w") as f:
        json.dump(call, f)


DIVAN_ROW = re.compile(r"[├╰]─\s+(\S+)\s+([\d.]+ [nµm]?s)\s+│\s+([\d.]+ [nµm]?s)\s+│\s+([\d.]+ [nµm]?s)")


def to_us(text):
    value, unit = text.split()
    return float(value) * {"ns": 0.001, "µs": 1.0, "ms": 1000.0, "s": 1e6}[unit]


def divan(package, bench, with_stdout=False):
    """Median per benchmark name, in µs, from a divan run (and the run's stdout if asked)."""
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "-p", package, "--bench", bench, "--", "--color", "never"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    medians = {}
    parents = []
    for line in out.stdout.splitlines():
        match = DIVAN_ROW.search(line)
        depth = (len(line) - len(line.lstrip("│ "))) // 3
        name = line.strip("│ ├╰─").split()[0] if line.strip("│ ├╰─") else ""
        if match:
            medians["/".join(parents[:depth] + [match.group(1)])] = to_us(match.group(4))
        elif name and ("├─" in line or "╰─" in line):
            parents = parents[:depth] + [name]
    if out.returncode != 0:
        print(out.stderr[-2000:], file=sys.stderr)
    return (medians, out.stdout) if with_stdout else medians


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ask-user-bench-")
    four, fifty = os.path.join(work, "four.json"), os.path.join(work, "fifty.json")
    write_call(four, 4)
    write_call(fifty, 50)
    lines = ("\n".join(LABELS) + "\n").encode()
    rows = []  # (what, ask-user figure, peer figure or None, unit, target text, met)

    def add(what, ours, peer, unit, target, met):
        rows.append((what, ours, peer, unit, target, met))

    tui = [ASK_USER, "--mode", "tui", "--no-notify"]
    f4, e4, rss4 = pty_time.measure(tui + [four], "Esc cancel", args.runs)
    f50, e50, rss50 = pty_time.measure(tui + ["--max-options", "50", fifty], "Esc cancel", args.runs)
    fzf = ensure_fzf()
    ff = ef = None
    if fzf:
        ff, ef, _ = pty_time.measure([fzf, "--height", "12"], "50/50", args.runs, stdin_data=lines)
    fm = em = None
    if os.path.exists(MINIMAL):
        fm, em, _ = pty_time.measure([MINIMAL], "Option 12", args.runs, stdout_to_null=False)
    add("first frame, 4 options (pty 120×40)", f4, fm, "ms", "≤ 8 ms", f4 <= 8)
    add("first frame, 50 options vs fzf --height 12", f50, ff, "ms", "≤ 8 ms and ≤ 0.7× fzf",
        f50 <= 8 and (ff is None or f50 <= 0.7 * ff))
    add("first frame, 50 options vs minimal ratatui inline", f50, fm, "ms", "—", None)
    add("Enter to exit, 4 options", e4, em, "ms", "≤ 2 ms", e4 <= 2)
    add("Enter to exit, 50 options vs fzf", e50, ef, "ms", "≤ 2 ms", e50 <= 2)

    import process  # noqa: E402
    proc = process.figures(ASK_USER, max(args.runs * 3, 60))
    add("ask-user validate (whole process)", proc["validate"], None, "ms", "—", None)
    add("ask-user -p (pass 1, whole process)", proc["pass1"], None, "ms", "—", None)
    add("ask-user -c (pass 2, whole process)", proc["pass2"], None, "ms", "—", None)
    add("ask-user mcp: cold start to the tools/list reply", proc["mcp_tools_list"], None, "ms",
        "< 15 ms", proc["mcp_tools_list"] < 15)

    import faults  # noqa: E402
    load = faults.figures(ASK_USER, max(args.runs // 3, 5))
    add("replay from a 100,000-record log (whole process)", load["replay_ms"], None, "ms",
        "< 100 ms", load["replay_ms"] < 100)
    add("peak RSS, replay from a 100,000-record log", load["replay_peak_kib"] / 1024, None, "MiB",
        "< 16 MiB", load["replay_peak_kib"] < 16 * 1024)
    add("peak RSS, RPC flood of 4,000,000 bad lines (exit 5)", load["flood_peak_kib"] / 1024, None,
        "MiB", "< 32 MiB", load["flood_peak_kib"] < 32 * 1024 and load["flood_exit"] == 5)

    parse = divan("ask-schema", "parse")
    valid = parse.get("parse_valid_4x4")
    if valid is not None:
        add("raw JSON → validated input (4×4, in-process)", valid, None, "µs", "≤ 20 µs", valid <= 20)
    non_ascii = parse.get("parse_valid_4x4_non_ascii")
    if non_ascii is not None:
        add("raw JSON → validated input (4×4, non-ASCII labels: look-alike check)", non_ascii,
            None, "µs", "—", None)
    dialects = {k.split("/", 1)[1]: v for k, v in parse.items() if k.startswith("parse_dialect_4x4/")}
    if dialects:
        slowest = max(dialects, key=dialects.get)
        add(f"raw JSON in an agent's dialect → validated input (4×4, slowest: {slowest})",
            dialects[slowest], None, "µs", "< 20 µs", dialects[slowest] < 20)
    refused = parse.get("refuse_100k_options")
    if refused is not None:
        add("validate 100,000 options: refused (in-process)", refused / 1000, None, "ms", "< 50 ms",
            refused < 50_000)
    repeated = parse.get("refuse_100k_repeated_labels")
    if repeated is not None:
        add("validate 100,000 repeated labels: 100 problems + count (in-process)", repeated / 1000,
            None, "ms", "< 50 ms", repeated < 50_000)
    keys = divan("ask-tui", "keypress")
    for name, value in sorted(keys.items()):
        add(f"update + view per keypress: {name}", value, None, "µs", "< 1000 µs", value < 1000)
    rpc, rpc_out = divan("ask-rpc", "roundtrip", with_stdout=True)
    if "one_in_flight" in rpc:
        add("RPC round trips/s, 1 in flight (in-memory duplex)", 1e6 / rpc["one_in_flight"], None,
            "/s", "—", None)
    if "thousand_in_flight" in rpc:
        rate = 1000 * 1e6 / rpc["thousand_in_flight"]
        add("RPC round trips/s, 1,000 in flight (in-memory duplex)", rate, None, "/s",
            "≥ 50,000/s", rate >= 50_000)
    per_ask = re.search(r"memory per ask in flight: (\d+) bytes", rpc_out)
    if per_ask:
        add("RPC memory per ask in flight", int(per_ask.group(1)) / 1024, None, "KiB", "—", None)

    serve = subprocess.run(
        ["cargo", "bench", "--quiet", "-p", "ask-user", "--bench", "serve", "--", "--bin", ASK_USER],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    rate = re.search(r"answers per second through serve: (\d+)/s", serve)
    if rate:
        rate = int(rate.group(1))
        add("serve: answers/s with 1,000 asks in flight (agents' and people's HTTP APIs)", rate, None,
            "/s", "≥ 2,000/s", rate >= 2000)
    import web  # noqa: E402
    per_ask = web.figures(ASK_USER, 1000)
    add("serve: memory per waiting ask (1,000 held)", per_ask / 1024, None, "KiB", "—", None)
    if os.path.exists(VENV_PYTHON):
        page = subprocess.run(
            [VENV_PYTHON, os.path.join(ROOT, "bench", "web_page.py"), "--bin", ASK_USER,
             "--runs", str(args.runs)], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        for line in page.splitlines():
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            add(cells[0], float(cells[1].split()[0]), None, "ms", "—", None)
    else:
        print(f"no {VENV_PYTHON}: the --mode web page rows are left out (see docs/benchmarks.md)",
              file=sys.stderr)

    add("peak RSS, TUI with 50 options", max(rss4, rss50) / 1024, None, "MiB", "≤ 10 MiB", max(rss4, rss50) / 1024 <= 10)
    stripped = os.path.join(work, "ask-user-stripped")
    shutil.copy(ASK_USER, stripped)
    subprocess.run(["strip", stripped], check=False)
    size = os.path.getsize(stripped) / 1e6
    add("stripped binary, every presenter (dist profile)", size, None, "MB", "< 10 MB", size < 10)
    shutil.rmtree(work, ignore_errors=True)

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    header = f"| what | ask-user | peer | ratio | target | met |\n|---|---:|---:|---:|---|---|"
    print(header)
    for what, ours, peer, unit, target, met in rows:
        peer_text = figure(peer, unit) if peer is not None else ""
        ratio = f"{ours / peer:.2f}×" if peer else ""
        met_text = "" if met is None else ("yes" if met else "**no**")
        print(f"| {what} | {figure(ours, unit)} | {peer_text} | {ratio} | {target} | {met_text} |")


def figure(value, unit):
    """A figure as the table shows it: rates as whole numbers with thousands separators."""
    if unit == "/s":
        return f"{value:,.0f}/s"
    return f"{value:.2f} {unit}"


if __name__ == "__main__":
    main()
