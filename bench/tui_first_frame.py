#!/usr/bin/env python3
"""Time to the first frame of the terminal UI in a pseudo-terminal, and peak memory.

Each run starts `ask-user demo` in a fresh 80x24 pty (stdout to /dev/null), measures the time
from the spawn until the whole first frame has arrived (the help line ends it), sends a few
keys, reads the process's peak RSS (VmHWM), and sends Esc. The pty never answers any query, so a UI that waited
for one would show up here as a timeout.

Usage: bench/tui_first_frame.py [--runs N] [--bin PATH]
Build first with `cargo build --release -p ask-cli`.
Targets: first frame <= 8 ms median, peak RSS < 10 MiB.
"""
import argparse
import fcntl
import os
import pty
import select
import statistics
import struct
import sys
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAME_END = "Esc cancel".encode()


def one_run(binary):
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(binary, [binary, "demo"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    first_frame = None
    deadline = start + 10
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen += chunk
        if FRAME_END in seen:
            first_frame = (time.perf_counter() - start) * 1000
            break
    # Peak memory of the ask-user process itself: VmHWM belongs to the process image, while
    # wait4's ru_maxrss would also count the forked copy of this Python interpreter.
    for _ in range(5):
        # A few keys first, so the figure covers more than the first frame.
        os.write(fd, b"\x1b[B")
        select.select([fd], [], [], 0.05)
        try:
            os.read(fd, 65536)
        except OSError:
            pass
    peak_kib = vm_hwm_kib(pid)
    os.write(fd, b"\x1b")
    status = None
    while status is None:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                pass
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            status = wait_status
    os.close(fd)
    return first_frame, peak_kib, os.waitstatus_to_exitcode(status)


def vm_hwm_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ask-user"))
    args = parser.parse_args()
    if not os.path.exists(args.bin):
        sys.exit(f"{args.bin} is missing; run `cargo build --release -p ask-cli` first")
    frames, peaks = [], []
    for _ in range(args.runs):
        frame, peak_kib, code = one_run(args.bin)
        if frame is None:
            sys.exit("no first frame within 10 s")
        if code != 130:
            sys.exit(f"Esc should cancel with exit code 130, got {code}")
        frames.append(frame)
        peaks.append(peak_kib)
    print(f"runs: {args.runs}")
    print(f"first frame: median {statistics.median(frames):.2f} ms, "
          f"min {min(frames):.2f} ms, max {max(frames):.2f} ms (target <= 8 ms median)")
    print(f"peak RSS: max {max(peaks) / 1024:.2f} MiB, median {statistics.median(peaks) / 1024:.2f} MiB "
          f"(target < 10 MiB)")


if __name__ == "__main__":
    main()
