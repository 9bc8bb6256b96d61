/**
 * pi-ask-user: the `ask_user` tool in pi, backed by the ask-user binary of this repository.
 *
 * - interactive: ask-user's questions UI drawn inside pi's screen (`ask-user --mode embedded`);
 *   with PI_ASK_USER_FULLSCREEN=1, ask-user's own terminal UI takes the terminal over while it
 *   shows (`tui.stop()`), and pi takes it back afterwards;
 * - print (`pi -p`): the pending-questions file, answered with pi's own commands
 *   (`pi -c -p @FILE "…"`, `pi -c -p --answers '[…]' "continue"`, an edited file and
 *   `pi -c -p "continue"`); the answers reach the model as a message before the next turn;
 * - RPC (`pi --mode rpc`): each question as pi's select and input dialogs;
 * - every finished call is recorded in `.pi/ask-user-session.jsonl`, and a call id already
 *   recorded returns its record without asking;
 * - a pi started by another pi (a sub-agent) is refused;
 * - the model's and the person's text is drawn only through ask-core's display rules
 *   (`display.ts`), and a call the binary refuses hands the model its reason on every route;
 * - it keeps no state of its own and asks the binary what happened (`session get`,
 *   `questions state`); from pi it reads only which `ask_user` results of the branch were
 *   pending and which answers it already injected (`ask-user-answers` messages carry their
 *   call ids).
 */

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as readline from "node:readline";

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { Text, truncateToWidth } from "@mariozechner/pi-tui";

import { callFile, findBinary, parseOutput, paths, run, sharedFlags } from "./ask-user.ts";
import { askAll, readQuestions } from "./dialogs.ts";
import { asToolOutput, isObject, once, parseJson, readLine, refusalFromExit } from "./output.ts";
import { callLines, resultLines, shown } from "./render.ts";
import descriptor from "./tool.json" with { type: "json" };
import type { ToolOutput } from "./types.ts";

/** The variable that marks the pi process that loaded this package first. */
export const OWNER_VARIABLE = "PI_ASK_USER_OWNER";

/** The custom message that carries answers given after a pending call into the session. */
export const ANSWERS_MESSAGE = "ask-user-answers";

/**
 * True when this pi was started by another pi that has this package (a sub-agent): the parent
 * marks itself in the environment at load, and a child inherits a mark that is not its own.
 */
function markOwner(env: NodeJS.ProcessEnv = process.env): boolean {
	const owner = env[OWNER_VARIABLE];
	if (owner === undefined || owner === "") {
		env[OWNER_VARIABLE] = String(process.pid);
		return false;
	}
	return owner !== String(process.pid);
}

/** The tool result pi expects; an error output is thrown, so pi marks it as an error. */
function toResult(output: ToolOutput) {
	if (output.isError) throw new Error(output.content);
	return { content: [{ type: "text" as const, text: output.content }], details: output.details ?? null };
}

export default function askUser(pi: ExtensionAPI) {
	const subAgent = markOwner();

	pi.registerFlag("answers", {
		description: "Answer the pending ask_user questions: a JSON array of answers in question order",
		type: "string",
	});

	pi.registerTool({
		name: descriptor.function.name,
		label: "Ask user",
		description: descriptor.function.description,
		promptSnippet: "Ask the user structured clarifying questions with options",
		promptGuidelines: [
			"Use ask_user when a decision needs the user's input instead of guessing; relay its pending instructions to the user verbatim when it returns them.",
		],
		parameters: descriptor.function.parameters as never,

		async execute(toolCallId, params, signal, _onUpdate, ctx) {
			const bin = findBinary();
			const cwd = ctx.cwd;
			const flags = [...sharedFlags(cwd, subAgent), "--call-id", toolCallId];
			// A call id already recorded (a replayed branch, a pass 2 done elsewhere) returns its
			// record without asking.
			if (!subAgent) {
				const recorded = await run(
					bin,
					["session", "get", paths(cwd).session, toolCallId, "--output", "tool"],
					{ cwd, signal },
				);
				const found = asToolOutput(parseOutput(recorded, "ask-user session get"));
				if (found) return toResult(found);
			}
			if (!ctx.hasUI || subAgent) {
				const printed = await run(bin, ["-p", ...flags, "-"], { cwd, stdin: JSON.stringify(params), signal });
				const output = asToolOutput(parseOutput(printed, "ask-user")) ?? refusalFromExit(printed.code, printed.stderr);
				if (!output) throw new Error(`ask-user ended without a result: ${printed.stderr.trim()}`);
				return toResult(output);
			}
			const file = callFile(cwd, toolCallId, params);
			try {
				// pi runs this factory only with its own terminal UI; over RPC it resolves at once.
				let drawn = false;
				const fullScreen = Boolean(process.env.PI_ASK_USER_FULLSCREEN);
				const shown = await ctx.ui.custom<Shown>((tui, theme, _keybindings, done) => {
					drawn = true;
					if (fullScreen) return takeOver(tui, bin, [...flags, file], cwd, signal, done);
					return embedded(tui, theme, bin, [...flags, file], cwd, signal, done);
				});
				if (drawn && shown) {
					if (shown.error !== undefined) throw shown.error;
					const output = shown.output ?? refusalFromExit(shown.code, shown.stderr);
					if (!output) throw new Error(`ask-user ended without a result: ${shown.stderr.trim()}`);
					if (output.isError && output.details == null && (shown.code ?? 0) >= 128) {
						// Interrupted (Ctrl+C twice, a signal): pi never runs a call again, so the
						// turn ends here rather than letting the model carry on without answers.
						ctx.abort();
					}
					return toResult(output);
				}
				// pi's RPC input dialog shows what is typed, so a secret is never asked through it.
				const questions: unknown = (params as { questions?: unknown }).questions;
				const secret = Array.isArray(questions)
					? (questions as unknown[]).find((q) => isObject(q) && q.secret === true && typeof q.question === "string")
					: undefined;
				if (isObject(secret)) {
					throw new Error(
						`The question "${secret.question}" is secret, and pi's RPC dialogs show typed text: ask it where the answer is typed masked (pi's interactive mode), or ask it without "secret".`,
					);
				}
				return toResult(await overRpc(bin, [...flags, file], ctx, signal));
			} finally {
				fs.rmSync(file, { force: true });
			}
		},

		// The model's arguments are drawn as they stream in, checked or not: `callLines` takes
		// any value and sanitises every text.
		renderCall(args, theme, context) {
			return new Text(callLines(args, theme, context?.argsComplete !== false), 0, 0);
		},

		renderResult(result, _options, theme) {
			const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
			const text = isObject(first) && first.type === "text" && typeof first.text === "string" ? first.text : "";
			return new Text(resultLines(result.details, text, theme), 0, 0);
		},
	});

	// The answers given after a pending call, as pi's transcript shows them: the model reads the
	// message as it is, and people read it sanitised.
	pi.registerMessageRenderer(ANSWERS_MESSAGE, (message, _options, theme) => {
		const parts: unknown[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
		const text = parts
			.map((part) => (isObject(part) && part.type === "text" && typeof part.text === "string" ? part.text : ""))
			.join("\n");
		const label = theme.fg("customMessageLabel", theme.bold("ask_user answers"));
		return new Text(`${label}\n${theme.fg("customMessageText", shown(text))}`, 1, 1);
	});

	// Print mode's pass 2: answers given with pi's commands reach the model before the next turn.
	pi.on("before_agent_start", async (event, ctx) => {
		const waiting = waitingCalls(ctx);
		if (waiting.length === 0) return;
		const bin = findBinary();
		const cwd = ctx.cwd;
		const { pending, session } = paths(cwd);
		const flags = ["--host", "pi", "--output", "tool", "--session", session];
		const inline = pi.getFlag("answers");
		const reply = replyTo(event.prompt, pending);
		let pass: string[] | undefined;
		if (typeof inline === "string" && inline !== "") {
			pass = ["-p", "--answers", inline, "--pending-file", pending];
		} else if (reply !== undefined) {
			pass = ["-p", `@${pending}`, reply];
		} else {
			const state = parseOutput(
				await run(bin, ["questions", "state", "--pending-file", pending], { cwd }),
				"ask-user questions state",
			);
			if (isObject(state) && state.pending === true && state.complete === true) {
				pass = ["-c", "--pending-file", pending];
			}
		}
		if (pass) {
			const answered = await run(bin, [...pass, ...flags], { cwd });
			if (answered.code !== 0 && ctx.hasUI) ctx.ui.notify(shown(answered.stderr.trim()), "warning");
		}
		const delivered: { callId: string; output: ToolOutput }[] = [];
		for (const callId of waiting) {
			const found = asToolOutput(
				parseOutput(
					await run(bin, ["session", "get", session, callId, "--output", "tool"], { cwd }),
					"ask-user session get",
				),
			);
			if (found) delivered.push({ callId, output: found });
		}
		if (delivered.length === 0) return;
		const content = delivered
			.map(({ callId, output }) => `Answers to the pending ask_user call ${callId}:\n${output.content}`)
			.join("\n\n");
		return {
			message: {
				customType: ANSWERS_MESSAGE,
				content,
				display: true,
				details: { callIds: delivered.map((d) => d.callId), records: delivered.map((d) => d.output.details) },
			},
		};
	});
}

/** How the questions ended in pi's terminal UI. */
interface Shown {
	output?: ToolOutput;
	code: number | null;
	stderr: string;
	error?: unknown;
}

type Done = (shown: Shown) => void;

/** The fallback (`PI_ASK_USER_FULLSCREEN=1`): pi gives the terminal to ask-user's own UI while
 * the person answers (`tui.stop()`), and takes it back afterwards. */
function takeOver(tui: any, bin: string, args: string[], cwd: string, signal: AbortSignal | undefined, done: Done) {
	tui.stop();
	run(bin, ["--mode", "tui", ...args], { cwd, signal })
		.then(
			(result): Shown => {
				const output = asToolOutput(parseJson(result.stdout));
				return { output, code: result.code, stderr: result.stderr };
			},
			(error: unknown): Shown => ({ code: null, stderr: "", error }),
		)
		.then((shown) => {
			tui.start();
			tui.requestRender(true);
			done(shown);
		});
	return { render: () => [], handleInput: () => {}, invalidate: () => {} };
}

/** The questions drawn inside pi's screen: `ask-user --mode embedded` gets pi's keys and the
 * room, and sends frames back (ask-rpc/EMBEDDED.md). `done` is called once, whatever happens to
 * the child. */
function embedded(
	tui: any,
	theme: any,
	bin: string,
	args: string[],
	cwd: string,
	signal: AbortSignal | undefined,
	done: Done,
) {
	const child = spawn(bin, ["--mode", "embedded", ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] });
	let lines: string[] = [];
	let width = 0;
	let frames = 0;
	let output: ToolOutput | undefined;
	let stderr = "";
	const abort = () => child.kill("SIGTERM");
	signal?.addEventListener("abort", abort, { once: true });
	const finish = once((shown: Shown) => {
		signal?.removeEventListener("abort", abort);
		done(shown);
	});
	const send = (message: unknown) => {
		if (child.stdin.writable) child.stdin.write(`${JSON.stringify(message)}\n`);
	};
	// The child may end while pi still has keys for it; its exit says what happened.
	child.stdin.on("error", () => {});
	child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	// pi's theme, as the SGR parameters each of its colour roles starts with.
	const roles: { [role: string]: string } = {};
	for (const role of ["accent", "success", "warning", "dim"]) {
		try {
			const params = /\x1b\[([0-9;]+)m/.exec(theme.fg(role, "x"))?.[1];
			if (params) roles[role] = params;
		} catch {
			// A role pi's theme does not have keeps ask-user's colour.
		}
	}
	send({ type: "theme", roles });
	readline.createInterface({ input: child.stdout }).on("line", (text) => {
		const line = readLine(text);
		if (line.kind === "frame") {
			// The first two frames (at the start, and for the theme) are drawn at 80 columns,
			// before pi said how wide it is.
			if (frames++ > 1) lines = line.lines;
			tui.requestRender();
		} else if (line.kind === "result") {
			output = line.output ?? output;
		}
	});
	child.on("error", (error) => finish({ code: null, stderr, error }));
	child.on("close", (code) => finish({ output, code, stderr }));
	return {
		render(w: number): string[] {
			if (w !== width) {
				width = w;
				const rows = Math.max(8, (process.stdout.rows ?? 24) - 8);
				send({ type: "size", width: w, maxHeight: rows });
			}
			return lines.map((line) => truncateToWidth(line, w));
		},
		handleInput(data: string) {
			send({ type: "input", data });
		},
		invalidate() {},
	};
}

/** The ask_user calls of the current branch whose questions went to the pending file and whose
 * answers have not reached the model yet. */
function waitingCalls(ctx: ExtensionContext): string[] {
	const waiting: string[] = [];
	for (const entry of ctx.sessionManager.getBranch() as any[]) {
		if (entry.type === "message" && entry.message?.role === "toolResult" && entry.message.toolName === "ask_user") {
			const details: unknown = entry.message.details;
			if (isObject(details) && details.status === "pending") {
				waiting.push(typeof details.callId === "string" ? details.callId : entry.message.toolCallId);
			}
		}
		if (entry.type === "custom_message" && entry.customType === ANSWERS_MESSAGE) {
			for (const id of (entry.details?.callIds ?? []) as string[]) {
				const at = waiting.indexOf(id);
				if (at >= 0) waiting.splice(at, 1);
			}
		}
	}
	return waiting;
}

/** The reply of `pi -c -p @PENDING "reply"`: pi inlines the file as `<file name="…">…</file>`;
 * the text around it is the reply. `undefined` when the prompt does not attach the file. */
function replyTo(prompt: string, pending: string): string | undefined {
	const tag = /<file name="([^"]*)">[\s\S]*?<\/file>/g;
	let attached = false;
	const rest = prompt.replace(tag, (whole, name: string) => {
		if (name === pending) {
			attached = true;
			return "";
		}
		return whole;
	});
	if (!attached) return undefined;
	const reply = rest.trim();
	return reply === "" ? undefined : reply;
}

/**
 * RPC mode: `ask-user --rpc`, each request answered through pi's dialogs. The tool output is the
 * result line's, or, for a call the binary refused before asking, its refusal (a result line that
 * says so, a tool output with no type, or only its exit code and stderr). It settles once.
 */
function overRpc(bin: string, args: string[], ctx: ExtensionContext, signal?: AbortSignal): Promise<ToolOutput> {
	return new Promise((resolve, reject) => {
		const child = spawn(bin, ["--rpc", ...args], { cwd: ctx.cwd, stdio: ["pipe", "pipe", "pipe"] });
		let stderr = "";
		let output: ToolOutput | undefined;
		let failure: Error | undefined;
		const abort = () => child.kill("SIGTERM");
		signal?.addEventListener("abort", abort, { once: true });
		const settle = once((code: number | null, error?: Error) => {
			signal?.removeEventListener("abort", abort);
			const final = output ?? refusalFromExit(code, stderr);
			if (final && !error && !failure) resolve(final);
			else reject(error ?? failure ?? new Error(`ask-user --rpc ended without a result: ${stderr.trim()}`));
		});
		const send = (message: unknown) => {
			if (child.stdin.writable) child.stdin.write(`${JSON.stringify(message)}\n`);
		};
		child.stdin.on("error", () => {});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		// Requests are answered one after the other, each through its dialogs.
		let answering = Promise.resolve();
		readline.createInterface({ input: child.stdout }).on("line", (text) => {
			const line = readLine(text);
			if (line.kind === "request") {
				answering = answering
					.then(async () => {
						const questions = readQuestions(line.questions);
						if (!questions) throw new Error("ask-user --rpc sent questions this package cannot read");
						const answers = await askAll(ctx.ui, questions);
						send(
							answers === undefined
								? { type: "ask_user_cancel", requestId: line.requestId }
								: { type: "ask_user_response", requestId: line.requestId, answers },
						);
					})
					.catch((error: unknown) => {
						failure = error instanceof Error ? error : new Error(String(error));
						child.kill("SIGTERM");
					});
			} else if (line.kind === "result" && line.output) {
				output = line.output;
				child.stdin.end();
			}
		});
		child.on("error", (error) => settle(null, error));
		child.on("close", (code) => settle(code));
	});
}
