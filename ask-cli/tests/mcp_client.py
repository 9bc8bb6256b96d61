"""Drives `ask-user mcp` with the official MCP Python SDK and prints what it saw as one JSON document.

Usage: mcp_client.py SCENARIO SERVER_COMMAND [ARGS...]

SCENARIO is `elicit` (the client answers through form elicitation, following the plan of
`ELICIT_PLAN` below, on a session opened with the initialize handshake), `stateless` (the same
through the SDK's high-level `Client`, which speaks the stateless protocol of 2026-07-28 when
the server offers it: the form comes back as an input-required result and the call is retried),
`plain` (the client declares no elicitation), or `headless` (the client declares elicitation
but every form it is sent is recorded and cancelled, as Claude Code does in `-p` mode).
The calls of a scenario are in `CALLS`; the Rust test `tests/it/mcp.rs` asserts on the output.
"""

import asyncio
import json
import os
import sys

try:
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
except ImportError as error:
    print(f"the MCP Python SDK is missing ({error}); run `python3 -m pip install -r ask-cli/tests/requirements.txt`", file=sys.stderr)
    sys.exit(3)

DATABASE = {
    "question": "Which database should we use?",
    "header": "Database",
    "options": [
        {"label": "PostgreSQL (Recommended)", "description": "Battle-tested relational DB"},
        {"label": "SQLite", "description": "File-based, zero configuration"},
    ],
}
FEATURES = {
    "question": "Which features should we include?",
    "header": "Features",
    "options": [{"label": "Authentication"}, {"label": "REST API"}, {"label": "Admin Dashboard"}],
    "multiSelect": True,
}
NAME = {"question": "What should the project be called?", "header": "Name"}

# The calls made in every scenario, by name.
CALLS = {
    "choices": {"questions": [DATABASE, FEATURES]},
    "other": {"questions": [DATABASE, FEATURES]},
    "none": {"questions": [FEATURES]},
    "free_text": {"questions": [NAME]},
    "declined": {"questions": [DATABASE]},
    "cancelled": {"questions": [DATABASE]},
    "incomplete": {"questions": [DATABASE, NAME]},
    "bounded": {"questions": [DATABASE, NAME]},
    "invalid": {"questions": [{"question": "Which?", "options": [{"label": "Only one"}]}], "extra": 1},
}

# What the person does in the client's form, per elicitation request, in call order.
ELICIT_PLAN = [
    # A multi-select question comes as a check box per option (q2_1, q2_2, q2_3).
    ("choices", "accept", {"q1": "SQLite", "q2_3": True, "q2_1": True, "q2_2": False}),
    (
        "other",
        "accept",
        {"q1": "SQLite", "q1_other": "CockroachDB", "q2_2": True, "q2_other": "Webhooks"},
    ),
    # Nothing ticked is no answer and the form comes again; "None of these" answers it.
    ("none", "accept", {"q1_1": False, "q1_2": False, "q1_3": False, "q1_none": False}),
    ("none", "accept", {"q1_none": True}),
    ("free_text", "accept", {"q1": "  Falcon  "}),
    ("declined", "decline", None),
    ("cancelled", "cancel", None),
    # Round 1 answers the first question only, round 2 only the second: both are kept.
    ("incomplete", "accept", {"q1": "SQLite"}),
    ("incomplete", "accept", {"q2": "Falcon"}),
    # A client that keeps accepting an incomplete form: after 3 rounds the pending file takes over.
    ("bounded", "accept", {"q1_other": "MariaDB"}),
    ("bounded", "accept", {}),
    ("bounded", "accept", {}),
]


def dump(model):
    """A pydantic model of the SDK as wire JSON (camelCase keys)."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def run_calls(session, scenario, seen):
    seen["tools"] = [dump(tool) for tool in (await session.list_tools()).tools]
    names = ["choices", "invalid"] if scenario in ("plain", "headless") else list(CALLS)
    for name in names:
        result = await session.call_tool("ask_user", CALLS[name])
        seen["calls"][name] = dump(result)


async def main(scenario, command):
    requests = []
    plan = list(ELICIT_PLAN)

    async def on_elicit(context, params):
        if scenario == "headless":
            requests.append({"call": "headless", "params": dump(params)})
            return types.ElicitResult(action="cancel")
        call, action, content = plan.pop(0)
        requests.append({"call": call, "params": dump(params)})
        if action != "accept":
            # A person takes a moment to decline; a decline within 300 ms of the form is a
            # client that cannot ask, and the server goes on to its next presenter.
            await asyncio.sleep(0.6)
        return types.ElicitResult(action=action, content=content)

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    callback = None if scenario == "plain" else on_elicit
    seen = {"calls": {}}
    if scenario == "stateless":
        try:
            from mcp import Client
        except ImportError:
            print("the MCP Python SDK is older than 2.0; run `python3 -m pip install -r ask-cli/tests/requirements.txt`", file=sys.stderr)
            sys.exit(3)
        async with Client(server, elicitation_callback=callback) as client:
            seen["protocolVersion"] = client.protocol_version
            await run_calls(client, scenario, seen)
    else:
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write, elicitation_callback=callback) as session:
                init = dump(await session.initialize())
                seen["protocolVersion"] = init["protocolVersion"]
                seen["serverInfo"] = init["serverInfo"]
                await run_calls(session, scenario, seen)
    seen["elicitations"] = requests
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
