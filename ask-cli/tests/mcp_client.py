"""Drives `ask-user mcp` with the official MCP Python SDK and prints what it saw as one JSON document.

Usage: mcp_client.py SCENARIO SERVER_COMMAND [ARGS...]

SCENARIO is `elicit` (the client answers through form elicitation, following the plan of
`ELICIT_PLAN` below) or `plain` (the client declares no elicitation).
The calls of a scenario are in `CALLS`; the Rust test `tests/mcp.rs` asserts on the output.
"""

import asyncio
import json
import os
import sys

try:
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client
except ImportError as error:
    print(f"the MCP Python SDK is missing ({error}); run `python3 -m pip install mcp`", file=sys.stderr)
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
    "free_text": {"questions": [NAME]},
    "declined": {"questions": [DATABASE]},
    "cancelled": {"questions": [DATABASE]},
    "incomplete": {"questions": [DATABASE]},
    "invalid": {"questions": [{"question": "Which?", "options": [{"label": "Only one"}]}], "extra": 1},
}

# What the person does in the client's form, per elicitation request, in call order.
ELICIT_PLAN = [
    ("choices", "accept", {"q1": "SQLite", "q2": ["Admin Dashboard", "Authentication"]}),
    (
        "other",
        "accept",
        {"q1": "SQLite", "q1_other": "CockroachDB", "q2": ["REST API"], "q2_other": "Webhooks"},
    ),
    ("free_text", "accept", {"q1": "  Falcon  "}),
    ("declined", "decline", None),
    ("cancelled", "cancel", None),
    ("incomplete", "accept", {}),
    ("incomplete", "accept", {"q1_other": "MariaDB"}),
]


def dump(model):
    """A pydantic model of the SDK as wire JSON (camelCase keys)."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main(scenario, command):
    requests = []
    plan = list(ELICIT_PLAN)

    async def on_elicit(context, params):
        call, action, content = plan.pop(0)
        requests.append({"call": call, "params": dump(params)})
        return types.ElicitResult(action=action, content=content)

    server = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    seen = {"calls": {}}
    async with stdio_client(server) as (read, write):
        callback = on_elicit if scenario == "elicit" else None
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            init = await session.initialize()
            seen["serverInfo"] = dump(init.serverInfo if hasattr(init, "serverInfo") else init.server_info)
            seen["tools"] = [dump(tool) for tool in (await session.list_tools()).tools]
            names = list(CALLS) if scenario == "elicit" else ["choices", "invalid"]
            for name in names:
                result = await session.call_tool("ask_user", CALLS[name])
                seen["calls"][name] = dump(result)
    seen["elicitations"] = requests
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
