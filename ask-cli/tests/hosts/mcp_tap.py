"""Records the MCP messages between a host and the stdio server it starts, for ask-cli/tests/hosts.rs.

Usage: mcp_tap.py LOG -- PROGRAM ARGS...

It runs PROGRAM with ARGS, passes the host's stdin to it and its stdout back byte for byte, and
appends each complete JSON-RPC line to LOG (JSON lines) as {"from": "host" | "server", "ms":
milliseconds since the start, "message": the parsed message}. The program's stderr and exit code
are its own. When the host closes stdin, so does the tap.
"""

import json
import os
import subprocess
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


def pump(side, source, sink):
    """Copies `source` to `sink` line by line, recording each line, and closes `sink` at the end."""
    try:
        for line in iter(source.readline, b""):
            record(side, line)
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
