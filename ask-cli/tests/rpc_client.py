#!/usr/bin/env python3
"""A client of `ask-user --rpc` that shares no code with the project: standard library only.

Usage: rpc_client.py SCENARIO BINARY INPUT EVENTS
Plays SCENARIO (answer, cancel, bad-line, disconnect) against `BINARY --rpc INPUT --events EVENTS`
and prints a JSON report: every line the binary wrote on stdout, and its exit code.
"""
import json
import subprocess
import sys


def read_message(process, lines):
    line = process.stdout.readline()
    if not line:
        raise SystemExit(f"ask-user closed stdout early; so far: {lines}")
    message = json.loads(line)
    lines.append(message)
    return message


def send(process, message):
    text = message if isinstance(message, str) else json.dumps(message)
    process.stdin.write(text + "\n")
    process.stdin.flush()


def main():
    scenario, binary, call, events = sys.argv[1:5]
    process = subprocess.Popen(
        [binary, "--rpc", call, "--events", events],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    request = read_message(process, lines)
    assert request["type"] == "ask_user_request", request
    waiting = read_message(process, lines)
    assert waiting["type"] == "ask_user_state" and waiting["state"] == "waiting_for_user", waiting
    request_id = request["requestId"]
    questions = request["questions"]

    if scenario == "answer":
        answers = []
        for question in questions:
            if question.get("multiSelect"):
                labels = [option["label"] for option in question["options"]]
                answers.append({"question": question["question"], "answer": [labels[-1], labels[0], "GraphQL"]})
            elif question.get("options"):
                answers.append({"question": question["question"], "answer": question["options"][1]["label"]})
            else:
                answers.append({"question": question["question"], "answer": "order-processor"})
        send(process, {"type": "ask_user_response", "requestId": request_id, "answers": answers})
    elif scenario == "cancel":
        send(process, {"type": "ask_user_cancel", "requestId": request_id})
    elif scenario == "bad-line":
        send(process, "{this is not json")
        error = read_message(process, lines)
        assert error["type"] == "error" and error["code"] == "invalid_json", error
        send(process, {"type": "ask_user_response", "requestId": request_id,
                       "answers": [{"answer": "I would rather use DynamoDB"}, {"answer": "svc"}]})
    elif scenario == "disconnect":
        process.stdin.close()
    else:
        raise SystemExit(f"unknown scenario {scenario}")

    rest = process.stdout.read()
    stderr = process.stderr.read()
    process.wait(timeout=30)
    for line in rest.splitlines():
        if line.strip():
            lines.append(json.loads(line))
    print(json.dumps({"lines": lines, "exit": process.returncode, "stderr": stderr}))


if __name__ == "__main__":
    main()
