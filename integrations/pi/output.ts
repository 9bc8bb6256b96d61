/**
 * Reading what the ask-user binary writes. Every line and document is checked before use: a line
 * that is not JSON, or not the shape expected, is never thrown at pi.
 */

import type { ToolOutput } from "./types.ts";

/** A JSON object, as read from the binary before its fields are checked. */
export type Fields = { [key: string]: unknown };

export function isObject(value: unknown): value is Fields {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON value of `text`, or `undefined` when it is not JSON. */
export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** `value` when it is a tool output (`{content, details?, isError}`), else `undefined`. */
export function asToolOutput(value: unknown): ToolOutput | undefined {
	if (!isObject(value) || typeof value.content !== "string" || typeof value.isError !== "boolean") {
		return undefined;
	}
	const details = value.details;
	if (details !== undefined && details !== null && !isObject(details)) return undefined;
	return value as unknown as ToolOutput;
}

/** The sentence of a call the binary refused (an invalid call, a sub-agent), as the model reads it. */
function refusalText(result: Fields): string | undefined {
	if (typeof result.message === "string" && result.message.trim() !== "") return result.message;
	if (!Array.isArray(result.problems)) return undefined;
	const problems = result.problems
		.filter(isObject)
		.map((p) => `${typeof p.path === "string" ? p.path : ""}: ${typeof p.message === "string" ? p.message : ""}`);
	return problems.length > 0 ? `The ask_user call is invalid:\n${problems.join("\n")}` : undefined;
}

/**
 * The tool output an `ask_user_result` line carries: its `toolOutput` (with `--output tool`), or,
 * for a call the binary refused (`invalid` or `refused`, at the top of the line or in its
 * `result`), an error output with the refusal's message.
 */
export function resultOutput(line: Fields): ToolOutput | undefined {
	const output = asToolOutput(line.toolOutput);
	if (output) return output;
	for (const result of [line, line.result]) {
		if (!isObject(result) || (result.invalid !== true && result.refused !== true)) continue;
		const content = refusalText(result);
		if (content !== undefined) return { content, isError: true };
	}
	return undefined;
}

/** What one line of `ask-user --rpc` or `--mode embedded` says. */
export type Line =
	| { kind: "request"; requestId: string; questions: unknown[] }
	| { kind: "frame"; lines: string[] }
	| { kind: "result"; output: ToolOutput | undefined }
	| { kind: "other" };

/**
 * Reads one line of the binary's protocol. A line that is not JSON, or of no known shape, is
 * `other`; so is an `error` line, which answers a line of ours and never ends the ask. A tool
 * output with no `type` is the result too: it is the last line of a call the binary refused
 * before asking, or of an interrupted one.
 */
export function readLine(text: string): Line {
	const message = parseJson(text);
	if (!isObject(message)) return { kind: "other" };
	switch (message.type) {
		case "ask_user_request":
			if (typeof message.requestId === "string" && Array.isArray(message.questions)) {
				return { kind: "request", requestId: message.requestId, questions: message.questions };
			}
			return { kind: "other" };
		case "frame":
			if (Array.isArray(message.lines) && message.lines.every((line) => typeof line === "string")) {
				return { kind: "frame", lines: message.lines as string[] };
			}
			return { kind: "other" };
		case "ask_user_result":
			return { kind: "result", output: resultOutput(message) };
		case undefined: {
			const output = asToolOutput(message);
			return output ? { kind: "result", output } : { kind: "other" };
		}
		default:
			return { kind: "other" };
	}
}

/**
 * The refusal a binary that wrote no result line said on stderr: exit code 2 is an invalid call
 * (or input it could not read), 3 a refused sub-agent. `undefined` for any other ending.
 */
export function refusalFromExit(code: number | null, stderr: string): ToolOutput | undefined {
	if (code !== 2 && code !== 3) return undefined;
	const said = stderr
		.split("\n")
		.map((line) => line.replace(/^ask-user: ?/, ""))
		.join("\n")
		.trim();
	return said === "" ? undefined : { content: said, isError: true };
}

/** `f`, which runs only the first time it is called: a child's `error` and `close` may both come. */
export function once<A extends unknown[]>(f: (...args: A) => void): (...args: A) => void {
	let done = false;
	return (...args: A) => {
		if (done) return;
		done = true;
		f(...args);
	};
}
