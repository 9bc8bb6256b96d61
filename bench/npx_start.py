#!/usr/bin/env python3
"""How long `npx -y ask-user@VERSION mcp` takes from an empty npm cache to its first `tools/list`
reply, with the tarballs of `cargo xtask dist` served by the static registry of the package tests
on 127.0.0.1 (so the figure is npm's and the launcher's work, not a network's); then the same
with the cache left warm, and the installed size of the packages npx put in its folder.

Usage: bench/npx_start.py [--runs N]
Build the packages first with `cargo xtask dist`.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = os.path.join(ROOT, "target", "packages")
REGISTRY = os.path.join(ROOT, "ask-cli", "tests", "packages_host", "registry.py")

OPENING = b"".join(json.dumps(m).encode() + b"\n" for m in [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
])


def version():
    with open(os.path.join(ROOT, "integrations", "npm", "ask-user", "package.json")) as f:
        return json.load(f)["version"]


def first_tools_list(env, package):
    """Seconds from starting npx to the line that answers tools/list."""
    start = time.perf_counter()
    server = subprocess.Popen(["npx", "-y", package, "mcp"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    server.stdin.write(OPENING)
    server.stdin.flush()
    try:
        for line in server.stdout:
            if json.loads(line).get("id") == 2:
                return time.perf_counter() - start
        raise SystemExit("the server ended without answering tools/list")
    finally:
        server.stdin.close()
        server.wait(timeout=30)


def size(path):
    """Bytes of the files under `path`."""
    return sum(os.path.getsize(os.path.join(base, name))
               for base, _, files in os.walk(path) for name in files)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    package = f"ask-user@{version()}"
    with tempfile.TemporaryDirectory() as work:
        registry = subprocess.Popen(["python3", REGISTRY, PACKAGES, os.path.join(work, "log")],
                                    stdout=subprocess.PIPE, env=dict(os.environ, REGISTRY_LIFETIME="600"))
        port = int(registry.stdout.readline())
        for name in ["npmrc", "global-npmrc"]:
            open(os.path.join(work, name), "w").close()
        try:
            cold, warm = [], []
            for run in range(runs):
                cache = os.path.join(work, f"cache-{run}")
                env = {
                    "PATH": "/usr/bin:/bin", "HOME": work,
                    "npm_config_registry": f"http://127.0.0.1:{port}/",
                    "npm_config_cache": cache,
                    "npm_config_userconfig": os.path.join(work, "npmrc"),
                    "npm_config_globalconfig": os.path.join(work, "global-npmrc"),
                    "npm_config_update_notifier": "false",
                    "ASK_USER_NO_TTY": "1",
                }
                cold.append(first_tools_list(env, package))
                warm.append(first_tools_list(env, package))
            installed = os.path.join(cache, "_npx")
            print(f"npx -y {package} mcp to the first tools/list reply, {runs} runs:")
            print(f"  empty npm cache: median {statistics.median(cold):.2f} s "
                  f"(min {min(cold):.2f}, max {max(cold):.2f})")
            print(f"  warm npm cache:  median {statistics.median(warm):.2f} s "
                  f"(min {min(warm):.2f}, max {max(warm):.2f})")
            for folder in sorted(os.listdir(installed)):
                modules = os.path.join(installed, folder, "node_modules")
                for scope, names in [("", ["ask-user"]), ("@ask-user", None)]:
                    base = os.path.join(modules, scope)
                    for name in names or sorted(os.listdir(base)):
                        print(f"  installed {os.path.join(scope, name)}: "
                              f"{size(os.path.join(base, name)) / 1024 / 1024:.2f} MiB")
        finally:
            registry.kill()
            registry.wait()


if __name__ == "__main__":
    main()
