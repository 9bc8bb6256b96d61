"""A stand-in model for the terminal agents of ask-cli/tests/it/hosts.rs.

It listens on 127.0.0.1 only (on MODEL_PORT, or any free port), prints its port, and answers the
APIs the agents use:

- OpenAI Responses (POST .../responses), as Codex speaks it;
- OpenAI Chat Completions (POST .../chat/completions), as OpenAI-compatible providers speak it;
- the Gemini API (POST .../models/MODEL:generateContent, :streamGenerateContent, :countTokens);
- Anthropic Messages (POST .../messages, .../messages/count_tokens).

Each answer streams when the request asks for a stream. The stand-in's one behaviour: when a
request offers a tool whose name ends with TOOL (ASK_TOOL, default ask_user; hosts prefix MCP
tools with their server's name or put them in a namespace), the turn's prompt (the last user
message that carries no tool result) says "ask me", and the turn has no result of that tool yet,
it calls the tool with the arguments in the file named by ASK_CALL (when the tool is deferred
behind Claude Code's ToolSearch, it loads it first). It appends each result of its calls to
results.jsonl, and once the turn has one, it ends the turn with a short text. A session continued
with the prompt "continue" after a result of that tool calls it again with the same arguments. Told "ask me" in a
request that offers no such tool, it says so (NO_TOOL). Every other request gets a short text too (a
JSON value that meets the schema when the request asks for JSON).

As a parent agent: when ASK_DELEGATE names a file that exists and holds {"tool": NAME, "arguments": {...}}, the
turn's prompt says "start the helper", and the request offers the tool NAME (the host's own tool
that starts a sub-agent), it calls NAME with those arguments once in the turn, appends the result
to delegations.jsonl, and then ends the turn with a short text.

Every request is appended to requests.jsonl (path, API, the names of the offered tools, body) in
the folder named on the command line, so a test reads what the model received. It stops by
itself after MODEL_LIFETIME seconds.
"""

import gzip
import json
import os
import re
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LIFETIME = float(os.environ.get("MODEL_LIFETIME", "170"))
CALL = json.loads(open(os.environ["ASK_CALL"]).read())
TOOL = os.environ.get("ASK_TOOL", "ask_user")
TRIGGER = "ask me"
DELEGATE_FILE = os.environ.get("ASK_DELEGATE")
DELEGATE = json.loads(open(DELEGATE_FILE).read()) if DELEGATE_FILE and os.path.exists(DELEGATE_FILE) else None
DELEGATE_TRIGGER = "start the helper"
# The ids of the stand-in's calls: a result for one of these is what the host gave the model.
CALL_PREFIX = "call_ask_"
DONE = "The stand-in model got the tool result."
RESUME = "continue"
NO_TOOL = "The stand-in model has no tool to ask with."
DELEGATED = "The stand-in model got the sub-agent's result."
LOG = sys.argv[1]
LOCK = threading.Lock()
RECORDED = set()
COUNT = [0]


def earlier_runs():
    """The results recorded by earlier runs in this folder (a session continued in a new run
    carries them in its history): they are not recorded again, and new calls get new ids."""
    try:
        with open(os.path.join(LOG, "results.jsonl")) as results:
            for line in results:
                RECORDED.add(json.loads(line)["callId"])
                COUNT[0] += 1000
    except FileNotFoundError:
        pass


earlier_runs()


def append(name, record):
    with LOCK:
        with open(os.path.join(LOG, name), "a") as out:
            out.write(json.dumps(record) + "\n")


def text_of(value):
    """The text inside a message's content, whatever its shape."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(text_of(part) for part in value)
    if isinstance(value, dict):
        for key in ("text", "content", "output", "parts"):
            if key in value:
                return text_of(value[key])
    return ""


def tool_names(tools, namespace=""):
    """The names of the offered tools, a tool inside a namespace as NAMESPACE/NAME."""
    names = []
    for tool in tools or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):
            names.append(namespace + tool["function"].get("name", ""))
        elif tool.get("type") == "namespace":
            names += tool_names(tool.get("tools"), tool.get("name", "") + "/")
        elif "name" in tool:
            names.append(namespace + tool["name"])
        for key in ("functionDeclarations", "function_declarations"):
            names += tool_names(tool.get(key), namespace)
    return names


def our_tool(names):
    """The offered name of the tool to call: TOOL, or TOOL behind a host's prefix or namespace."""
    for name in names:
        bare = name.rsplit("/", 1)[-1]
        if bare == TOOL or bare.endswith("_" + TOOL):
            return name
    return None


def fill(schema):
    """A value that satisfies a JSON schema (Gemini's upper-case types too), for a request that
    asks for JSON: the first of an enum, 1 for a number, a short text for a string."""
    schema = schema or {}
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        return {name: fill(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "stand-in"


def record_result(api, call_id, tool, result):
    if call_id in RECORDED:
        return
    RECORDED.add(call_id)
    append("results.jsonl", {"api": api, "callId": call_id, "tool": tool, "result": result, "text": text_of(result)})


def record_delegation(api, call_id, tool, result):
    if ("delegation", call_id) in RECORDED:
        return
    RECORDED.add(("delegation", call_id))
    append("delegations.jsonl", {"api": api, "callId": call_id, "tool": tool, "result": result,
                                 "text": text_of(result)})


def next_id(prefix):
    with LOCK:
        COUNT[0] += 1
        return f"{prefix}{COUNT[0]}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding not in ("", "identity"):
            raise ValueError("the stand-in model reads no " + encoding + " body")
        return json.loads(raw) if raw else {}

    def do_GET(self):
        append("requests.jsonl", {"method": "GET", "path": self.path})
        if self.path.rstrip("/").endswith("/models"):
            self.send_json({"object": "list", "data": [{"id": "stand-in", "object": "model"}], "models": []})
        else:
            self.send_json({"error": {"message": "the stand-in model serves no " + self.path}}, 404)

    def do_POST(self):
        path = self.path.split("?")[0]
        body = self.body()
        if path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/chat/completions"):
            api = "chat"
        elif ":" in path.rsplit("/", 1)[-1]:
            api = "gemini"
        elif path.endswith("/messages") or path.endswith("/messages/count_tokens"):
            api = "anthropic"
        else:
            api = "unknown"
        self.request = body
        tools = body.get("tools")
        append("requests.jsonl", {"method": "POST", "path": self.path, "api": api,
                                  "tools": tool_names(tools), "body": body})
        if api == "responses":
            self.openai_responses(body)
        elif api == "chat":
            self.chat(body)
        elif api == "gemini":
            self.gemini(path, body)
        elif api == "anthropic":
            self.anthropic(path, body)
        else:
            self.send_json({"error": {"message": "the stand-in model serves no " + self.path}}, 404)

    # What to say: a call of the tool, or a text.

    def decide(self, api, history, names, schema):
        """What to answer (see `answer`); a text goes through `complete_task` when the request
        offers it: a Gemini CLI sub-agent ends its turn only by that tool."""
        what = self.answer(api, history, names, schema)
        if what[0] == "text" and schema is None and "complete_task" in names:
            return "call", "complete_task", {"result": what[1]}
        return what

    def answer(self, api, history, names, schema):
        """What to answer a request whose conversation is `history` (a list of ("prompt", text),
        ("call", id, name) and ("result", id, value), oldest first) and that offers the tools
        `names`: ("call", name, arguments) or ("text", text). `schema` is the JSON schema the
        answer must meet, when the request asks for JSON."""
        calls = {entry[1]: entry[2] for entry in history if entry[0] == "call"}

        def ours(entry):
            return (entry[0] == "result" and str(entry[1]).startswith(CALL_PREFIX)
                    and our_tool([calls.get(entry[1]) or ""]) is not None)

        for entry in history:
            if ours(entry):
                record_result(api, entry[1], calls[entry[1]], entry[2])
        # Only the current turn counts: from the last prompt on.
        last = max((i for i, entry in enumerate(history) if entry[0] == "prompt"), default=-1)
        prompt = history[last][1] if last >= 0 else ""
        turn = history[last + 1:]
        answered = any(ours(entry) for entry in turn)
        searched = any(entry[0] == "call" and entry[2] == "ToolSearch" for entry in turn)
        tool = our_tool(names)
        if DELEGATE and DELEGATE_TRIGGER in prompt and schema is None:
            started = [entry for entry in turn if entry[0] == "result" and calls.get(entry[1]) == DELEGATE["tool"]]
            for entry in started:
                record_delegation(api, entry[1], DELEGATE["tool"], entry[2])
            if started:
                return "text", DELEGATED
            if DELEGATE["tool"] in names:
                return "call", DELEGATE["tool"], DELEGATE["arguments"]
        # A session continued with "continue" after a result of the tool calls it again with the
        # same questions, as the pending result tells a model to.
        resumed = prompt.strip() == RESUME and any(ours(entry) for entry in history[:last])
        if (TRIGGER in prompt or resumed) and not answered:
            if tool:
                return "call", tool, CALL
            # Claude Code defers MCP tools: their names are listed in the prompt, and a model
            # loads a tool's schema with ToolSearch before it can call it.
            deferred = re.search(r"mcp__[A-Za-z0-9_-]+__" + re.escape(TOOL) + r"\b", json.dumps(self.request))
            if deferred and "ToolSearch" in names and not searched:
                return "call", "ToolSearch", {"query": "select:" + deferred.group(0), "max_results": 5}
        if schema is not None:
            return "text", json.dumps(fill(schema))
        if answered:
            return "text", DONE
        if TRIGGER in prompt:
            return "text", NO_TOOL
        return "text", "The stand-in model has nothing to do."

    # OpenAI Responses.

    def openai_responses(self, body):
        items = body.get("input")
        items = [{"type": "message", "role": "user", "content": items}] if isinstance(items, str) else items or []
        history = []
        for item in items:
            if item.get("type") == "function_call":
                name = "/".join(filter(None, [item.get("namespace"), item.get("name")]))
                history.append(("call", item.get("call_id"), name))
            elif item.get("type", "").endswith("_output"):
                history.append(("result", item.get("call_id"), item.get("output")))
            elif item.get("role") == "user":
                history.append(("prompt", text_of(item.get("content"))))
        fmt = (body.get("text") or {}).get("format") or {}
        schema = fmt.get("schema", {}) if fmt.get("type") in ("json_schema", "json_object") else None
        what = self.decide("responses", history, tool_names(body.get("tools")), schema)
        if what[0] == "call":
            namespace, _, name = what[1].rpartition("/")
            item = {"type": "function_call", "id": next_id("fc_"), "call_id": next_id(CALL_PREFIX), "name": name,
                    "arguments": json.dumps(what[2]), "status": "completed"}
            if namespace:
                item["namespace"] = namespace
        else:
            item = {"type": "message", "id": next_id("msg_"), "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": what[1], "annotations": []}]}
        usage = {"input_tokens": 1, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 2}
        response = {"id": next_id("resp_"), "object": "response", "created_at": 0, "status": "completed",
                    "model": "stand-in", "output": [item], "usage": usage}
        if not body.get("stream"):
            self.send_json(response)
            return
        events = [("response.created", {"response": dict(response, status="in_progress", output=[])}),
                  ("response.output_item.added", {"output_index": 0, "item": item})]
        if what[0] == "text":
            events.append(("response.output_text.delta", {"output_index": 0, "item_id": item["id"],
                                                          "content_index": 0, "delta": what[1]}))
        events += [("response.output_item.done", {"output_index": 0, "item": item}),
                   ("response.completed", {"response": response})]
        self.send_events([(name, dict(data, type=name)) for name, data in events])

    # OpenAI Chat Completions.

    def chat(self, body):
        history = []
        for m in body.get("messages") or []:
            if m.get("role") == "user":
                history.append(("prompt", text_of(m.get("content"))))
            elif m.get("role") == "tool":
                history.append(("result", m.get("tool_call_id"), m.get("content")))
            for c in m.get("tool_calls") or []:
                history.append(("call", c.get("id"), (c.get("function") or {}).get("name")))
        fmt = body.get("response_format") or {}
        schema = None
        if fmt.get("type") in ("json_object", "json_schema"):
            schema = (fmt.get("json_schema") or {}).get("schema", {})
        what = self.decide("chat", history, tool_names(body.get("tools")), schema)
        if what[0] == "call":
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"index": 0, "id": next_id(CALL_PREFIX), "type": "function",
                 "function": {"name": what[1], "arguments": json.dumps(what[2])}}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": what[1]}
            finish = "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not body.get("stream"):
            self.send_json({"id": next_id("chatcmpl_"), "object": "chat.completion", "created": 0,
                            "model": "stand-in", "usage": usage,
                            "choices": [{"index": 0, "message": message, "finish_reason": finish}]})
            return
        base = {"id": next_id("chatcmpl_"), "object": "chat.completion.chunk", "created": 0, "model": "stand-in"}
        chunks = [dict(base, choices=[{"index": 0, "delta": message, "finish_reason": None}]),
                  dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}], usage=usage)]
        self.send_events([(None, c) for c in chunks], done=True)

    # The Gemini API.

    def gemini(self, path, body):
        method = path.rsplit(":", 1)[-1]
        if method == "countTokens":
            self.send_json({"totalTokens": 1})
            return
        history = []
        for content in body.get("contents") or []:
            parts = content.get("parts") or []
            for part in parts:
                if "functionCall" in part:
                    call = part["functionCall"]
                    history.append(("call", call.get("id"), call.get("name")))
                if "functionResponse" in part:
                    response = part["functionResponse"]
                    history.append(("result", response.get("id"), response.get("response")))
            if content.get("role") == "user" and any("text" in p for p in parts):
                history.append(("prompt", text_of(parts)))
        config = body.get("generationConfig") or body.get("config") or {}
        schema = None
        if config.get("responseMimeType") == "application/json":
            schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
        what = self.decide("gemini", history, tool_names(body.get("tools")), schema)
        if what[0] == "call":
            part = {"functionCall": {"id": next_id(CALL_PREFIX), "name": what[1], "args": what[2]}}
        else:
            part = {"text": what[1]}
        response = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                    "index": 0}],
                    "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
                    "modelVersion": "stand-in"}
        if method == "streamGenerateContent":
            self.send_events([(None, response)])
        else:
            self.send_json(response)

    # Anthropic Messages.

    def anthropic(self, path, body):
        if path.endswith("/count_tokens"):
            self.send_json({"input_tokens": 1})
            return
        history = []
        for m in body.get("messages") or []:
            content = m.get("content")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
            results = False
            for block in blocks:
                if block.get("type") == "tool_use":
                    history.append(("call", block.get("id"), block.get("name")))
                if block.get("type") == "tool_result":
                    history.append(("result", block.get("tool_use_id"), block.get("content")))
                    results = True
            # A user message that carries tool results is the host's, not a prompt.
            if m.get("role") == "user" and not results:
                history.append(("prompt", text_of([b for b in blocks if b.get("type") == "text"])))
        what = self.decide("anthropic", history, tool_names(body.get("tools")), None)
        if what[0] == "call":
            block = {"type": "tool_use", "id": next_id(CALL_PREFIX), "name": what[1], "input": what[2]}
            stop = "tool_use"
            start = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(what[2])}
        else:
            block = {"type": "text", "text": what[1]}
            stop = "end_turn"
            start = dict(block, text="")
            delta = {"type": "text_delta", "text": what[1]}
        usage = {"input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        message = {"id": next_id("msg_"), "type": "message", "role": "assistant", "model": body.get("model", ""),
                   "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
        if not body.get("stream"):
            self.send_json(message)
            return
        events = [("message_start", {"message": dict(message, content=[], stop_reason=None)}),
                  ("content_block_start", {"index": 0, "content_block": start}),
                  ("content_block_delta", {"index": 0, "delta": delta}),
                  ("content_block_stop", {"index": 0}),
                  ("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 1}}),
                  ("message_stop", {})]
        self.send_events([(name, dict(data, type=name)) for name, data in events])

    # Replies.

    def send_json(self, value, status=200):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_events(self, events, done=False):
        out = b""
        for name, data in events:
            if name:
                out += b"event: " + name.encode() + b"\n"
            out += b"data: " + json.dumps(data).encode() + b"\n\n"
        if done:
            out += b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("MODEL_PORT", "0"))), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
threading.Timer(LIFETIME, server.shutdown).start()
server.serve_forever()
