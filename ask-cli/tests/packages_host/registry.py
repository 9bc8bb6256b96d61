#!/usr/bin/env python3
"""A static npm registry on 127.0.0.1 for the package tests (tests/it/packages.rs, tests/it/pi.rs).

Usage: registry.py FOLDER LOG

Serves the package document and the tarball of every `*.tgz` in FOLDER (the tarballs
`cargo xtask dist` wrote) and answers 404 for any other package, so an install that works here
needs nothing from elsewhere. Prints its port on the first line of stdout, appends one line per
request (`GET /path 200`) to LOG, and stops by itself after REGISTRY_LIFETIME seconds
(default 300).
"""

import base64
import hashlib
import http.server
import io
import json
import os
import sys
import tarfile
import threading
import urllib.parse
from pathlib import Path


def documents(folder, base):
    """The package documents and tarballs of the folder's `*.tgz`, by name and file name."""
    docs, tarballs = {}, {}
    for path in sorted(Path(folder).glob("*.tgz")):
        data = path.read_bytes()
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            manifest = json.load(tar.extractfile("package/package.json"))
        name, version = manifest["name"], manifest["version"]
        tarballs[path.name] = data
        manifest["dist"] = {
            "tarball": f"{base}/-/{path.name}",
            "shasum": hashlib.sha1(data).hexdigest(),
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
        }
        doc = docs.setdefault(name, {"name": name, "versions": {}, "dist-tags": {}})
        doc["versions"][version] = manifest
        doc["dist-tags"]["latest"] = version
    return docs, tarballs


def main():
    folder, log = sys.argv[1], sys.argv[2]
    state = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            path = urllib.parse.unquote(self.path.split("?", 1)[0])
            if path.startswith("/-/"):
                body = state["tarballs"].get(path[3:])
                kind = "application/octet-stream"
            else:
                doc = state["docs"].get(path.lstrip("/"))
                body = json.dumps(doc).encode() if doc else None
                kind = "application/json"
            with lock, open(log, "a") as f:
                f.write(f"GET {path} {200 if body is not None else 404}\n")
            if body is None:
                body, kind = b'{"error":"Not found"}', "application/json"
                self.send_response(404)
            else:
                self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    state["docs"], state["tarballs"] = documents(folder, f"http://127.0.0.1:{port}")
    print(port, flush=True)
    threading.Timer(float(os.environ.get("REGISTRY_LIFETIME", "300")), server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
