#!/usr/bin/env python3
"""Time a terminal program in a pseudo-terminal: from start to its first frame, and from the
final Enter to its exit. Standard library only.

Usage as a module: `first_frame_and_exit(argv, marker, ...)`; as a script:
  bench/pty_time.py --marker TEXT [--runs N] [--cols 120 --rows 40] -- COMMAND ARGS...
"""
import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import sys
import termios
import threading
import time

ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78DEHMNOZc]")


def _spawn(argv, cols, rows, stdin_data=None, env=None):
    """Starts argv with a pty as its controlling terminal and as stdin/stderr; stdout goes to a
    pipe, or to the pty too when `stdout_to_pty` programs (like fzf) need it."""
    pid, master = pty.fork()
    if pid == 0:
        try:
            if stdin_data is not None:
                read_end, write_end = os.pipe()
                os.write(write_end, stdin_data)
                os.close(write_end)
                os.dup2(read_end, 0)
            devnull = os.open(os.devnull, os.O_WRONLY)
            if env and env.get("_PTY_STDOUT_TO_NULL") == "1":
                os.dup2(devnull, 1)
            child_env = dict(os.environ if env is None else env)
            child_env.pop("_PTY_STDOUT_TO_NULL", None)
            child_env.setdefault("TERM", "xterm-256color")
            os.execvpe(argv[0], argv, child_env)
        finally:
            os._exit(127)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return pid, master


DECRQM = re.compile(rb"\x1b\[\?(\d+)\$p")


def _answer_queries(master, chunk):
    """Answers the queries a real terminal would answer: each cursor-position query, device
    attributes, and the state of a private mode (DECRQM, which fzf asks about bracketed paste
    and waits a second for: every mode is reported as reset)."""
    replies = b"\x1b[1;1R" * chunk.count(b"\x1b[6n")
    if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:
        replies += b"\x1b[?62;c"
    for mode in DECRQM.findall(chunk):
        replies += b"\x1b[?" + mode + b";2$y"
    if replies:
        os.write(master, replies)


def _drain(master):
    """Reads and drops whatever the program writes, until the terminal closes."""
    while True:
        try:
            if not os.read(master, 65536):
                return
        except OSError:
            return


def _peak_rss_kib(pid):
    """The peak resident memory of `pid` so far (VmHWM), in KiB. Read from /proc while the
    program runs: the wait4 figure would count the forked Python process before its exec."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def first_frame_and_exit(argv, marker, cols=120, rows=40, stdin_data=None, stdout_to_null=True,
                         keys_before_enter=b"", timeout=10.0):
    """Returns (ms to first frame, ms from Enter to exit, peak RSS in KiB)."""
    env = dict(os.environ)
    if stdout_to_null:
        env["_PTY_STDOUT_TO_NULL"] = "1"
    start = time.perf_counter()
    pid, master = _spawn(argv, cols, rows, stdin_data, env)
    seen = b""
    first = None
    deadline = start + timeout
    # Drawing may move the cursor over blank cells instead of writing spaces, so the marker is
    # looked for with spaces left out on both sides.
    marker_bytes = marker.replace(" ", "").encode()
    while first is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        _answer_queries(master, chunk)
        seen += chunk
        if marker_bytes in ANSI.sub(b"", seen).replace(b" ", b""):
            first = (time.perf_counter() - start) * 1000
    if first is None:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise RuntimeError(f"no first frame with {marker!r} from {argv[0]}: {ANSI.sub(b'', seen)[-400:]!r}")
    peak_kib = _peak_rss_kib(pid)
    if keys_before_enter:
        os.write(master, keys_before_enter)
        time.sleep(0.05)
    # A thread drains the terminal while the main thread blocks in waitpid, so the exit is
    # seen the moment it happens.
    drain = threading.Thread(target=_drain, args=(master,), daemon=True)
    drain.start()
    enter = time.perf_counter()
    os.write(master, b"\r")
    os.waitpid(pid, 0)
    exit_ms = (time.perf_counter() - enter) * 1000
    # The drain thread ends on EIO once the program's side of the terminal is closed; it must end
    # before the descriptor is closed, or it could read from the next run's terminal that reuses
    # the same number.
    drain.join()
    os.close(master)
    return first, exit_ms, peak_kib


def measure(argv, marker, runs, **kwargs):
    """Medians over `runs`: (first frame ms, Enter-to-exit ms, peak RSS KiB)."""
    frames, exits, rss = [], [], []
    # One run first that is not counted: it brings the program's pages into the page cache.
    first_frame_and_exit(argv, marker, **kwargs)
    for _ in range(runs):
        f, e, r = first_frame_and_exit(argv, marker, **kwargs)
        frames.append(f)
        exits.append(e)
        rss.append(r)
    return statistics.median(frames), statistics.median(exits), max(rss)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--marker", required=True)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--cols", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    frame, exit_ms, rss = measure(command, args.marker, args.runs, cols=args.cols, rows=args.rows)
    print(f"first frame {frame:.2f} ms, Enter to exit {exit_ms:.2f} ms, peak RSS {rss / 1024:.1f} MiB")


if __name__ == "__main__":
    sys.exit(main())
