"""A person and an agent served by `ask-user serve` while a crowd holds its connections.

Starts `ask-user serve` under `prlimit --nofile=LIMIT:LIMIT` (so it cannot raise its own limit),
opens `--idle` connections that never send a byte and `--slow` connections that send a
request's headers a byte at a time (slowloris), and keeps the crowd that size for the whole run:
a connection the inbox closes is opened again at once. Meanwhile a person loads the page (a new
connection, `GET /`) and an agent asks (the challenge-response, then the held `POST
/api/agent/asks` until the inbox answers with the ask's capability), one after the other,
`--samples` times each. Prints the time each took (median and slowest), how many were not served
at all, and how many of the crowd's connections the inbox closed to make room.

Usage: python3 bench/crowd.py [--bin PATH] [--limit N] [--idle N] [--slow N] [--samples N]
(default: target/dist/ask-user, 1024, 1,100 idle, 2,000 slow, 20 samples).
Standard library only; everything stays on 127.0.0.1.
"""

import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from web import CALL, authorization  # noqa: E402


class Crowd:
    """`idle` silent connections and `slow` slowloris connections to `address`, reopened as the
    inbox closes them, until `stop` is set."""

    def __init__(self, address, idle, slow):
        self.address = address
        self.stop = threading.Event()
        self.reopened = 0
        self.idle = [self.connect() for _ in range(idle)]
        self.slow = [self.connect(b"GET /api/asks HTTP/1.1\r\nHo") for _ in range(slow)]
        self.thread = threading.Thread(target=self.keep, daemon=True)
        self.thread.start()

    def connect(self, first=b""):
        while not self.stop.is_set():
            try:
                connection = socket.create_connection(self.address, timeout=2)
                connection.setblocking(False)
                if first:
                    connection.send(first)
                return connection
            except OSError:
                time.sleep(0.01)
        return None

    def alive(self, connection):
        """False when the inbox closed `connection` (end of file or a reset)."""
        try:
            return connection.recv(1) != b""
        except BlockingIOError:
            return True
        except OSError:
            return False

    def keep(self):
        while not self.stop.is_set():
            for crowd, first in ((self.idle, b""), (self.slow, b"GET /api/asks HTTP/1.1\r\nHo")):
                for at, connection in enumerate(crowd):
                    if self.stop.is_set():
                        return
                    if connection is not None and self.alive(connection):
                        if first:
                            try:
                                connection.send(b"s")
                            except OSError:
                                pass
                        continue
                    if connection is not None:
                        connection.close()
                    self.reopened += 1
                    crowd[at] = self.connect(first)
            self.stop.wait(1.0)

    def close(self):
        self.stop.set()
        self.thread.join()
        for connection in self.idle + self.slow:
            if connection is not None:
                connection.close()


def timed(work):
    """Seconds `work` took, or None when it failed."""
    started = time.monotonic()
    try:
        work()
    except OSError as error:
        print(f"  not served: {error}", file=sys.stderr)
        return None
    return time.monotonic() - started


def page(address, host):
    with socket.create_connection(address, timeout=30) as connection:
        connection.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        head = connection.recv(64)
    if not re.match(rb"HTTP/1\.[01] 200", head):
        raise OSError(f"the page answered {head[:20]!r}")


def ask(address, host, token, number):
    proof = authorization(address[0], address[1], host, token)
    body = json.dumps({"agent": f"agent-{number}", "cwd": "/tmp", "input": CALL})
    connection = socket.create_connection(address, timeout=30)
    connection.sendall((f"POST /api/agent/asks HTTP/1.0\r\nHost: {host}\r\n"
                        f"Authorization: {proof}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
    head = connection.recv(4096)
    connection.close()
    if not re.match(rb"HTTP/1\.[01] 200", head) or b"x-ask-capability" not in head.lower():
        raise OSError(f"the ask was answered {head[:40]!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/dist/ask-user")
    parser.add_argument("--limit", type=int, default=1024)
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--slow", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = args.idle + args.slow + 200
    if hard < needed:
        sys.exit(f"this bench needs {needed} descriptors; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    with tempfile.TemporaryDirectory() as runtime:
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime)
        env.pop("ASK_USER_VIA_TOKEN", None)
        limit = f"--nofile={args.limit}:{args.limit}"
        server = subprocess.Popen(["prlimit", limit, args.bin, "serve", "--listen", "127.0.0.1:0"],
                                  env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            first = server.stderr.readline()
            base = re.search(r"inbox at (http://[0-9.]+:[0-9]+)", first).group(1)
            threading.Thread(target=server.stderr.read, daemon=True).start()
            host = base[len("http://"):]
            address = (host.split(":")[0], int(host.split(":")[1]))
            with open(os.path.join(runtime, "ask-user", "serve-token")) as file:
                token = file.readline().strip()
            crowd = Crowd(address, args.idle, args.slow)
            time.sleep(2)
            pages, asks = [], []
            for number in range(args.samples):
                pages.append(timed(lambda: page(address, host)))
                asks.append(timed(lambda: ask(address, host, token, number)))
                time.sleep(0.25)
            reopened = crowd.reopened
            crowd.close()
        finally:
            server.kill()
            server.wait()
    print(f"serve under prlimit {limit}, {args.idle:,} idle and {args.slow:,} slowloris connections "
          f"({reopened:,} of the crowd's connections closed by the inbox and opened again):")
    for name, times in (("the page (GET /)", pages), ("an agent's ask (hello, POST)", asks)):
        served = [t for t in times if t is not None]
        failed = len(times) - len(served)
        if served:
            print(f"| {name} | median {statistics.median(served) * 1000:.1f} ms | "
                  f"slowest {max(served) * 1000:.1f} ms | not served {failed} of {len(times)} |")
        else:
            print(f"| {name} | not served {failed} of {len(times)} |")


if __name__ == "__main__":
    main()
