"""A scripted client of `pi --mode rpc`, for ask-cli/tests/it/pi.rs.

Usage: rpc_client.py SCRIPT -- PI_COMMAND...

It sends one prompt ("please ask me"), answers each dialog pi forwards (`extension_ui_request`
with method select or input) from SCRIPT, a JSON list of steps taken in order: for a select, the
first option that starts with the step's text (or {"cancel": true}); for an input, the step's
text. It stops at the first `agent_end` and prints, as one JSON document, the dialogs it saw.
It gives up after 60 seconds.
"""

import json
import subprocess
import sys
import threading

script = json.loads(sys.argv[1])
command = sys.argv[sys.argv.index("--") + 1:]
pi = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
timer = threading.Timer(60, pi.kill)
timer.start()
seen = []


def send(message):
    pi.stdin.write(json.dumps(message) + "\n")
    pi.stdin.flush()


send({"id": "p1", "type": "prompt", "message": "please ask me"})
for line in pi.stdout:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "extension_ui_request" and message.get("method") in ("select", "input"):
        seen.append({k: message.get(k) for k in ("method", "title", "options")})
        step = script.pop(0) if script else {"cancel": True}
        if isinstance(step, dict) and step.get("cancel"):
            send({"type": "extension_ui_response", "id": message["id"], "cancelled": True})
        elif message["method"] == "select":
            value = next(o for o in message["options"] if o.startswith(step))
            send({"type": "extension_ui_response", "id": message["id"], "value": value})
        else:
            send({"type": "extension_ui_response", "id": message["id"], "value": step})
    elif kind == "agent_end":
        break
pi.stdin.close()
pi.wait()
timer.cancel()
print(json.dumps({"dialogs": seen, "left": script}))
