/**
 * Running the ask-user binary: finding it, the flags every call shares, and reading its output.
 *
 * Every child the package starts (here and in `index.ts`) has an `error` handler and a handler on
 * its stdin's `error`, and settles once (`once`), so nothing the binary does can throw in pi.
 */

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";

import { once, parseJson } from "./output.ts";

/** What one run of the binary gave. */
export interface Run {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/** The sentence for a missing binary, naming the fixes. */
export const MISSING_BINARY =
	"ask_user needs the ask-user binary, and it was not found. It comes with this package's npm " +
	"dependency ask-user when the package is installed with `pi install npm:pi-ask-user`; otherwise " +
	"put ask-user on PATH (`npm install -g ask-user`, `pipx install ask-user` or " +
	"`cargo install --locked ask-user`), or set ASK_USER_BIN to the binary's path.";

function isExecutableFile(file: string): boolean {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

/**
 * The binary of this package's npm dependency `ask-user` (its platform package for this
 * machine): the path, or why there is none.
 */
function packagedBinary(): { bin?: string; why?: string } {
	let launcher: { binaryPath(): string };
	try {
		launcher = createRequire(import.meta.url)("ask-user");
	} catch {
		return {};
	}
	try {
		const bin = launcher.binaryPath();
		return isExecutableFile(bin) ? { bin } : { why: `${bin} is not an executable file.` };
	} catch (error) {
		return { why: error instanceof Error ? error.message : String(error) };
	}
}

/**
 * The ask-user binary: `ASK_USER_BIN` when set, else the binary of the npm dependency
 * `ask-user`, else `ask-user` on PATH. Throws a clear error.
 */
export function findBinary(env: NodeJS.ProcessEnv = process.env): string {
	const configured = env.ASK_USER_BIN;
	if (configured) {
		if (isExecutableFile(configured)) return configured;
		throw new Error(
			`ASK_USER_BIN is ${configured}, which is not an executable file. ${MISSING_BINARY}`,
		);
	}
	const packaged = packagedBinary();
	if (packaged.bin) return packaged.bin;
	for (const dir of (env.PATH ?? "").split(path.delimiter)) {
		if (!dir) continue;
		const candidate = path.join(dir, "ask-user");
		if (isExecutableFile(candidate)) return candidate;
	}
	throw new Error(packaged.why ? `${packaged.why} ${MISSING_BINARY}` : MISSING_BINARY);
}

/** Where this package keeps its files in pi's working folder. */
export function paths(cwd: string): { pending: string; session: string } {
	return {
		pending: path.join(cwd, ".pi", "pending-questions.json"),
		session: path.join(cwd, ".pi", "ask-user-session.jsonl"),
	};
}

/** The flags every ask shares: pi's pass-2 commands, the tool output, the session log. */
export function sharedFlags(cwd: string, subAgent: boolean): string[] {
	const { pending, session } = paths(cwd);
	const flags = ["--host", "pi", "--output", "tool", "--session", session, "--pending-file", pending];
	if (subAgent) flags.push("--sub-agent");
	return flags;
}

/**
 * Runs the binary to the end. `stdin` is written and closed; `tty` leaves stdin to the terminal
 * (the terminal UI reads /dev/tty itself). Aborting `signal` ends the process with SIGTERM. The
 * promise settles once: with the run, or with the error of a binary that could not start.
 */
export function run(
	bin: string,
	args: string[],
	options: { cwd: string; stdin?: string; signal?: AbortSignal },
): Promise<Run> {
	return new Promise((resolve, reject) => {
		const child = spawn(bin, args, {
			cwd: options.cwd,
			stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
			env: process.env,
		});
		let stdout = "";
		let stderr = "";
		child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
		child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
		const abort = () => child.kill("SIGTERM");
		options.signal?.addEventListener("abort", abort, { once: true });
		const settle = once((result: { run?: Run; error?: Error }) => {
			options.signal?.removeEventListener("abort", abort);
			if (result.run) resolve(result.run);
			else reject(result.error);
		});
		child.on("error", (error) => settle({ error }));
		child.on("close", (code, signal) => settle({ run: { code, signal, stdout, stderr } }));
		// A binary that ends before reading all of its input (a refused call) closes the pipe; its
		// exit code and output say what happened.
		child.stdin?.on("error", () => {});
		if (options.stdin !== undefined) child.stdin?.end(options.stdin);
	});
}

/** The one JSON document on stdout, or an error naming what the binary said. */
export function parseOutput(result: Run, what: string): unknown {
	const value = parseJson(result.stdout);
	if (value === undefined) {
		const said = result.stderr.trim() || `exit code ${result.code ?? result.signal}`;
		throw new Error(`${what} failed: ${said}`);
	}
	return value;
}

/** Writes the call to a private temporary file (RPC and terminal modes read INPUT from a file). */
export function callFile(cwd: string, toolCallId: string, params: unknown): string {
	const dir = path.join(cwd, ".pi");
	fs.mkdirSync(dir, { recursive: true });
	const safe = toolCallId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
	const file = path.join(dir, `ask-user-call-${safe}-${process.pid}.json`);
	fs.writeFileSync(file, JSON.stringify(params), { mode: 0o600 });
	return file;
}
