"""Memory per waiting ask in the inbox of `ask-user serve`.

Starts `ask-user serve` on a free port with its token in a temporary folder, holds N asks open
through the agents' API (raw HTTP/1.0 on sockets, as `ask-user --via` sends them, each after
the challenge-response that proves the token), and prints
the growth of the server's resident memory divided by N, as one Markdown table row.

Usage: python3 bench/web.py [--bin PATH] [--asks N]
Standard library only.
"""

import argparse
import hashlib
import hmac
import json
import os
import re
import resource
import socket
import subprocess
import tempfile
import time

CALL = {"questions": [{"question": "Which database should we use?", "header": "Database",
                       "options": [{"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
                                   {"label": "SQLite", "description": "Lightweight, file-based"}]}]}


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def authorization(address, port, host, token):
    """The challenge-response of an agent (ask-web/WEB.md): checks the inbox's proof and
    returns the `Authorization` of one request; the token itself is never sent."""
    nonce = os.urandom(32).hex()
    body = json.dumps({"nonce": nonce, "address": host})
    with socket.create_connection((address, int(port))) as connection:
        connection.sendall((f"POST /api/agent/hello HTTP/1.0\r\nHost: {host}\r\n"
                            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}").encode())
        reply = b""
        while chunk := connection.recv(4096):
            reply += chunk
    hello = json.loads(reply.split(b"\r\n\r\n", 1)[1])
    sign = lambda label: hmac.new(token.encode(), f"{label}\n{nonce}\n{hello['nonce']}\n{host}".encode(),
                                  hashlib.sha256).hexdigest()
    assert hmac.compare_digest(sign("ask-user inbox"), hello["proof"]), "not the inbox of this token"
    return f"AskUser {nonce} {hello['nonce']} {sign('ask-user client')}"


def figures(binary, asks):
    """Bytes of resident memory per waiting ask, with `asks` asks held open."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, asks + 100)), hard))
    with tempfile.TemporaryDirectory() as runtime:
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime)
        env.pop("ASK_USER_VIA_TOKEN", None)
        server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0"], env=env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            first = server.stderr.readline()
            base = re.search(r"inbox at (http://[0-9.]+:[0-9]+)", first).group(1)
            host = base[len("http://"):]
            address, port = host.split(":")
            with open(os.path.join(runtime, "ask-user", "serve-token")) as file:
                token = file.readline().strip()
            time.sleep(0.2)
            before = rss_kib(server.pid)
            held = []
            for i in range(asks):
                body = json.dumps({"agent": f"agent-{i}", "cwd": "/tmp", "input": CALL})
                proof = authorization(address, port, host, token)
                connection = socket.create_connection((address, int(port)))
                connection.sendall((f"POST /api/agent/asks HTTP/1.0\r\nHost: {host}\r\n"
                                    f"Authorization: {proof}\r\nContent-Type: application/json\r\n"
                                    f"Content-Length: {len(body)}\r\n\r\n{body}").encode())
                held.append(connection)
            for connection in held:
                # The response head: the ask is registered and held.
                connection.recv(64)
            time.sleep(0.5)
            after = rss_kib(server.pid)
            for connection in held:
                connection.close()
            return (after - before) * 1024 / asks
        finally:
            server.kill()
            server.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/dist/ask-user")
    parser.add_argument("--asks", type=int, default=1000)
    args = parser.parse_args()
    per_ask = figures(args.bin, args.asks)
    print(f"| serve: memory per waiting ask ({args.asks:,} held) | {per_ask / 1024:.1f} KiB |  |  | — |  |")


if __name__ == "__main__":
    main()
