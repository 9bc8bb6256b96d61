/**
 * How a call and its result look in pi's transcript: the questions, then the answers.
 *
 * Everything drawn here comes from the model or the person, and pi's `Text` keeps escape
 * sequences: every text goes through `sanitizeLines` (the display rules of ask-core), and
 * nothing here throws, whatever shape the model's arguments have.
 */

import { SECRET_ANSWER_FIELDS, SECRET_HIDES_REPLY, SECRET_PLACEHOLDER, sanitizeLines } from "./display.ts";
import { type Fields, isObject } from "./output.ts";

/** Styling functions of pi's theme that this uses. */
export interface Styles {
	fg(role: string, text: string): string;
	bold(text: string): string;
}

/** Agent or person text as pi may draw it: each line sanitised, the next lines indented. */
export function shown(text: string, indent = ""): string {
	return sanitizeLines(text).join(`\n${indent}`);
}

/** What the call shows of a question. */
interface ShownQuestion {
	question: string;
	header?: string;
	labels: string[];
	multiSelect: boolean;
}

function optionalString(value: unknown): value is string | null | undefined {
	return value === undefined || value === null || typeof value === "string";
}

/**
 * The questions of a call, or `undefined` when its arguments do not have the shape of a call
 * (the binary refuses it and tells the model why). While pi streams the arguments
 * (`complete` false), missing fields are still to come; a field of the wrong type never is.
 */
export function readCall(args: unknown, complete: boolean): ShownQuestion[] | undefined {
	if (!isObject(args)) return complete ? undefined : [];
	const questions = args.questions;
	if (questions === undefined) return complete ? undefined : [];
	if (!Array.isArray(questions)) return undefined;
	const read: ShownQuestion[] = [];
	for (const q of questions as unknown[]) {
		if (!isObject(q)) return undefined;
		if (typeof q.question !== "string" && (complete || q.question !== undefined)) return undefined;
		if (!optionalString(q.header)) return undefined;
		if (q.multiSelect !== undefined && typeof q.multiSelect !== "boolean") return undefined;
		const options = q.options ?? [];
		if (!Array.isArray(options)) return undefined;
		const labels: string[] = [];
		for (const o of options as unknown[]) {
			if (!isObject(o)) return undefined;
			if (typeof o.label === "string") labels.push(o.label);
			else if (complete || o.label !== undefined) return undefined;
		}
		read.push({
			question: typeof q.question === "string" ? q.question : "",
			header: typeof q.header === "string" ? q.header : undefined,
			labels,
			multiSelect: q.multiSelect === true,
		});
	}
	return read;
}

/** The call: one line per question, its options dimmed; "invalid call" for a malformed one. */
export function callLines(args: unknown, theme: Styles, complete = true): string {
	let text = theme.fg("toolTitle", theme.bold("ask_user"));
	const questions = readCall(args, complete);
	if (questions === undefined) return `${text} ${theme.fg("error", "invalid call")}`;
	for (const q of questions) {
		const header = q.header ? theme.fg("accent", `[${shown(q.header)}] `) : "";
		text += `\n  ${header}${shown(q.question, "  ")}`;
		if (q.labels.length) {
			const kind = q.multiSelect ? " (any of)" : "";
			text += `\n    ${theme.fg("dim", q.labels.map((label) => shown(label)).join(" · ") + kind)}`;
		}
	}
	return text;
}

/** The record of a call as far as the transcript needs it, or `undefined` for anything else. */
interface ShownRecord {
	status: string;
	answers: Fields[];
	secret: Set<string>;
	/** The labels of each multi-select question, by question. */
	multi: Map<string, Set<string>>;
	reply?: string;
	pendingFile?: string;
}

function readRecord(details: unknown): ShownRecord | undefined {
	if (!isObject(details) || typeof details.status !== "string") return undefined;
	const answers = Array.isArray(details.answers) ? (details.answers as unknown[]).filter(isObject) : [];
	const questions = Array.isArray(details.questions) ? (details.questions as unknown[]).filter(isObject) : [];
	const secret = new Set<string>();
	const multi = new Map<string, Set<string>>();
	for (const q of questions) {
		if (q.secret === true && typeof q.question === "string") secret.add(q.question);
		if (q.multiSelect === true && typeof q.question === "string") {
			const options = Array.isArray(q.options) ? (q.options as unknown[]).filter(isObject) : [];
			multi.set(q.question, new Set(options.map((o) => o.label).filter((l): l is string => typeof l === "string")));
		}
	}
	return {
		status: details.status,
		answers,
		secret,
		multi,
		reply: typeof details.reply === "string" ? details.reply : undefined,
		pendingFile: typeof details.pendingFile === "string" ? details.pendingFile : undefined,
	};
}

/** A field of an answer as it may be shown: the placeholder when its question is secret. */
function answerField(answer: Fields, field: (typeof SECRET_ANSWER_FIELDS)[number], secret: boolean): string | undefined {
	const value = answer[field];
	if (value === undefined || value === null) return undefined;
	if (secret && SECRET_ANSWER_FIELDS.includes(field)) return SECRET_PLACEHOLDER;
	if (typeof value === "string") return value;
	if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join(", ");
	return undefined;
}

/**
 * A multi-select answer: the labels picked, then the text typed through "Other" (which is added
 * to them), and only that text marked as typed; "none of these" for an answer of no option.
 */
function picksText(answer: unknown[], labels: Set<string>, theme: Styles): string {
	const parts = answer.filter((v): v is string => typeof v === "string");
	const picked = parts.filter((p) => labels.has(p));
	const typed = parts.filter((p) => !labels.has(p));
	if (picked.length === 0 && typed.length === 0) return theme.fg("dim", "none of these");
	let text = shown(picked.join(", "), "  ");
	if (typed.length > 0) {
		text += `${picked.length > 0 ? " + " : ""}${shown(typed.join(", "), "  ")}${theme.fg("dim", " (typed)")}`;
	}
	return text;
}

/**
 * The result: each question with its answer, or what happened instead. The answer, note and
 * reply of a secret question are drawn as the placeholder, whatever the details hold.
 */
export function resultLines(details: unknown, content: string, theme: Styles): string {
	const record = readRecord(details);
	if (!record) return theme.fg("error", shown(content));
	switch (record.status) {
		case "answered": {
			if (record.reply !== undefined) {
				const reply = record.secret.size > 0 && SECRET_HIDES_REPLY ? SECRET_PLACEHOLDER : record.reply;
				return `${theme.fg("success", "✓")} replied: ${shown(reply, "  ")}`;
			}
			return record.answers
				.map((a) => {
					const question = typeof a.question === "string" ? a.question : "";
					const secret = record.secret.has(question);
					const labels = record.multi.get(question);
					const drawn =
						labels !== undefined && !secret && Array.isArray(a.answer)
							? picksText(a.answer, labels, theme)
							: `${shown(answerField(a, "answer", secret) ?? "", "  ")}${a.wasCustom === true ? theme.fg("dim", " (typed)") : ""}`;
					let line = `${theme.fg("success", "✓")} ${shown(question, "  ")} ${theme.fg("dim", "→")} ${drawn}`;
					const notes = answerField(a, "notes", secret);
					if (notes !== undefined) line += `\n  ${theme.fg("dim", `note: ${shown(notes, "  ")}`)}`;
					return line;
				})
				.join("\n");
		}
		case "cancelled":
			return theme.fg("warning", "The questions were cancelled.");
		case "pending":
			return theme.fg(
				"warning",
				`Questions pending in ${shown(record.pendingFile ?? ".pi/pending-questions.json")}; answer with pi -c -p …`,
			);
		default:
			return theme.fg("warning", shown(content));
	}
}
