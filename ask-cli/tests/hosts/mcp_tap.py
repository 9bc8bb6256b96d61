"""Records the MCP messages between a host and the stdio server it starts, for ask-cli/tests/it/hosts.rs.

Usage: mcp_tap.py LOG -- PROGRAM ARGS...

It runs PROGRAM with ARGS, passes the host's stdin to it and its stdout back byte for byte, and
appends each complete JSON-RPC line to LOG (JSON lines) as {"from": "host" | "server", "ms":
milliseconds since the start, "message": the parsed message}. The program's stderr and exit code
are its own. When the host closes stdin, so does the tap.

When the host calls a tool, the tap also records what the server would find on the terminal at
that moment, as {"from": "tap", "ms": …, "terminal": …}: whether /dev/tty opens, whether the
server's process group is the terminal's foreground group, and whether the terminal is in
canonical mode with echo on (nobody holds it in raw mode). The server runs in the tap's process
group and session, so it sees the same.
"""

import json
import os
import subprocess
import termios
import sys
import threading
import time

LOG = sys.argv[1]
PROGRAM = sys.argv[sys.argv.index("--") + 1:]
START = time.monotonic()
LOCK = threading.Lock()


def record(side, line):
    try:
        message = json.loads(line)
    except ValueError:
        message = {"unparsed": line.decode("utf-8", "replace")}
    entry = {"from": side, "ms": round((time.monotonic() - START) * 1000, 1), "message": message}
    with LOCK, open(LOG, "a") as log:
        log.write(json.dumps(entry) + "\n")


def terminal():
    """What the server would find on its controlling terminal now."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as error:
        return {"opens": False, "error": error.strerror}
    try:
        lflag = termios.tcgetattr(fd)[3]
        return {"opens": True, "foreground": os.tcgetpgrp(fd) == os.getpgrp(),
                "canonical": bool(lflag & termios.ICANON), "echo": bool(lflag & termios.ECHO)}
    finally:
        os.close(fd)


def pump(side, source, sink):
    """Copies `source` to `sink` line by line, recording each line, and closes `sink` at the end."""
    try:
        for line in iter(source.readline, b""):
            record(side, line)
            if side == "host" and b'"tools/call"' in line:
                entry = {"from": "tap", "ms": round((time.monotonic() - START) * 1000, 1), "terminal": terminal()}
                with LOCK, open(LOG, "a") as log:
                    log.write(json.dumps(entry) + "\n")
            sink.write(line)
            sink.flush()
    except (BrokenPipeError, ValueError):
        pass
    finally:
        try:
            sink.close()
        except OSError:
            pass


child = subprocess.Popen(PROGRAM, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
host_in = os.fdopen(sys.stdin.fileno(), "rb", buffering=0)
host_out = os.fdopen(sys.stdout.fileno(), "wb", buffering=0)
threading.Thread(target=pump, args=("host", host_in, child.stdin), daemon=True).start()
reader = threading.Thread(target=pump, args=("server", child.stdout, host_out))
reader.start()
code = child.wait()
reader.join(timeout=5)
sys.exit(code)
