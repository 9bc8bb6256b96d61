// Reading the binary's lines: nothing it writes throws, and a refused call becomes the tool
// output the model reads, in the shapes the binary writes today and with a result line.

import assert from "node:assert/strict";
import { test } from "node:test";

import { asToolOutput, once, parseJson, readLine, refusalFromExit } from "../output.ts";

const INVALID = "The ask_user call is invalid:\n/questions/0/question: the question contains the control character U+001B (ESC) at character 6; remove it (only newline and tab are allowed)";

test("a line that is not JSON, or of no known shape, is passed over", () => {
	for (const text of ["", "not json", "{", "[1,2]", "null", "42", '"text"', '{"type":"error","message":"the line is not a host message"}', '{"type":"frame","lines":[1]}', '{"type":"ask_user_request","questions":[]}', '{"content":1,"isError":true}']) {
		assert.deepEqual(readLine(text), { kind: "other" }, text);
	}
	assert.equal(parseJson("{nope"), undefined);
	assert.equal(parseJson("null"), null);
});

test("a request, a frame and a result line are read", () => {
	assert.deepEqual(readLine('{"type":"ask_user_request","requestId":"r1","questions":[{"question":"Q?"}]}'), {
		kind: "request",
		requestId: "r1",
		questions: [{ question: "Q?" }],
	});
	assert.deepEqual(readLine('{"type":"frame","lines":["a","b"]}'), { kind: "frame", lines: ["a", "b"] });
	const output = { content: '{"answers":{"Q?":"A"}}', details: { status: "answered" }, isError: false };
	assert.deepEqual(readLine(JSON.stringify({ type: "ask_user_result", requestId: "r1", result: { answered: true, answers: [] }, toolOutput: output })), {
		kind: "result",
		output,
	});
});

test("a refused call reaches the model: the tool output with no type the binary writes today", () => {
	const line = JSON.stringify({ content: INVALID, isError: true });
	assert.deepEqual(readLine(line), { kind: "result", output: { content: INVALID, isError: true } });
});

test("a refused call reaches the model: a result line that says invalid or refused", () => {
	const invalid = {
		type: "ask_user_result",
		answered: false,
		answers: [],
		invalid: true,
		problems: [{ path: "/questions/0/question", message: "the question contains the control character U+001B (ESC) at character 6; remove it (only newline and tab are allowed)" }],
		message: INVALID,
	};
	assert.deepEqual(readLine(JSON.stringify(invalid)), { kind: "result", output: { content: INVALID, isError: true } });
	// Without a message, the problems are listed.
	const { message: _, ...bare } = invalid;
	assert.deepEqual(readLine(JSON.stringify(bare)), { kind: "result", output: { content: INVALID, isError: true } });
	// In the line's `result`, with a request id.
	const refusal = "ask_user is only available to the parent conversation; sub-agents cannot ask the user questions";
	const nested = { type: "ask_user_result", requestId: "r1", result: { answered: false, answers: [], refused: true, message: refusal } };
	assert.deepEqual(readLine(JSON.stringify(nested)), { kind: "result", output: { content: refusal, isError: true } });
	// Its tool output, when it has one, wins.
	const withOutput = { ...invalid, toolOutput: { content: "from the tool output", isError: true } };
	assert.deepEqual(readLine(JSON.stringify(withOutput)), { kind: "result", output: { content: "from the tool output", isError: true } });
});

test("a binary that wrote no result line: exit codes 2 and 3 carry the refusal on stderr", () => {
	const stderr = "ask-user: the call is invalid (1 problem):\nask-user:   /questions/0/question: the question contains …\n";
	assert.deepEqual(refusalFromExit(2, stderr), {
		content: "the call is invalid (1 problem):\n  /questions/0/question: the question contains …",
		isError: true,
	});
	assert.deepEqual(refusalFromExit(3, "ask-user: ask_user is only available to the parent conversation\n"), {
		content: "ask_user is only available to the parent conversation",
		isError: true,
	});
	assert.equal(refusalFromExit(0, stderr), undefined);
	assert.equal(refusalFromExit(130, stderr), undefined);
	assert.equal(refusalFromExit(2, "  \n"), undefined);
});

test("a tool output is checked before use", () => {
	assert.ok(asToolOutput({ content: "x", isError: false, details: null }));
	assert.ok(asToolOutput({ content: "x", isError: false }));
	assert.equal(asToolOutput({ content: "x", isError: "no" }), undefined);
	assert.equal(asToolOutput({ content: "x", isError: false, details: "text" }), undefined);
	assert.equal(asToolOutput(null), undefined);
});

test("once runs its function the first time only", () => {
	const calls: string[] = [];
	const settle = once((what: string) => calls.push(what));
	settle("error");
	settle("close");
	assert.deepEqual(calls, ["error"]);
});
