"""A stand-in for an OpenAI-compatible chat model, for the pi tests (ask-cli/tests/it/pi.rs).

It listens on 127.0.0.1 only, prints its port, and answers POST /v1/chat/completions with a
streamed reply: a call of ask_user when the last user message says "ask me" (its arguments are
the file named by ASK_CALL), a short text otherwise: "model saw: " and the first line of the last
message, or its role for a tool result (which may hold a secret answer, never shown to people). Every request body is appended to the
JSON-lines file named on the command line, so a test reads what the model received. It stops by
itself after LIFETIME seconds.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LIFETIME = float(os.environ.get("MODEL_LIFETIME", "150"))
CALL = open(os.environ["ASK_CALL"]).read()
LOG = sys.argv[1]
COUNT = [0]


def text_of(message):
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content or ""


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with open(LOG, "a") as log:
            log.write(json.dumps(body) + "\n")
        messages = body.get("messages", [])
        last = messages[-1] if messages else {}
        COUNT[0] += 1
        if last.get("role") == "user" and "ask me" in text_of(last):
            delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": f"call_{COUNT[0]}", "type": "function",
                     "function": {"name": "ask_user", "arguments": CALL}}]}
            finish = "tool_calls"
        else:
            # A tool result is not echoed: it may hold a secret answer, meant for the model only.
            said = [] if last.get("role") == "tool" else text_of(last).strip().splitlines()
            delta = {"role": "assistant", "content": "model saw: " + (said[0] if said else last.get("role", ""))}
            finish = "stop"
        chunks = [
            {"id": "r", "object": "chat.completion.chunk", "created": 0, "model": "stand-in",
             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {"id": "r", "object": "chat.completion.chunk", "created": 0, "model": "stand-in",
             "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
        ]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Timer(LIFETIME, server.shutdown).start()
server.serve_forever()
