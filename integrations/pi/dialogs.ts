/**
 * RPC mode: pi carries only its own dialogs (select, input) to an RPC client, so each question
 * becomes a sequence of them, and `ask-user --rpc` is driven with the answers.
 */

import { isObject } from "./output.ts";
import { shown } from "./render.ts";
import type { Question, QuestionOption } from "./types.ts";

/** The dialogs of `ctx.ui` that this needs. Each resolves to `undefined` when cancelled. */
export interface Dialogs {
	select(title: string, options: string[]): Promise<string | undefined>;
	input(title: string, placeholder?: string): Promise<string | undefined>;
}

/** An answer as an RPC client gives it (`ask_user_response`, ask-rpc/PROTOCOL.md). */
export interface GivenAnswer {
	question: string;
	answer: string | string[];
}

export const OTHER = "Other…";
export const DONE = "Done";
/** A multi-select's answer with none of its options: `[]`, given on purpose. */
export const NONE = "None of these";

/**
 * The questions of an `ask_user_request`, or `undefined` when one of them lacks the fields a
 * dialog needs (the binary sends only validated calls, so this is a broken binary).
 */
export function readQuestions(questions: unknown[]): Question[] | undefined {
	const read: Question[] = [];
	for (const q of questions) {
		if (!isObject(q) || typeof q.question !== "string") return undefined;
		const options: QuestionOption[] = [];
		if (q.options !== undefined && q.options !== null) {
			if (!Array.isArray(q.options)) return undefined;
			for (const o of q.options as unknown[]) {
				if (!isObject(o) || typeof o.label !== "string") return undefined;
				options.push({ label: o.label, description: typeof o.description === "string" ? o.description : undefined });
			}
		}
		read.push({
			question: q.question,
			header: typeof q.header === "string" ? q.header : undefined,
			options,
			multiSelect: q.multiSelect === true,
			secret: q.secret === true,
		});
	}
	return read;
}

function title(question: Question): string {
	const text = shown(question.question);
	return question.header ? `[${shown(question.header)}] ${text}` : text;
}

/** An option as a row of a select: its label (with "(Recommended)" as written) and description. */
function row(option: QuestionOption): string {
	return option.description ? `${shown(option.label)} — ${shown(option.description)}` : shown(option.label);
}

/** Asks for typed text until it is not blank; `undefined` when cancelled. */
async function typed(ui: Dialogs, prompt: string): Promise<string | undefined> {
	for (;;) {
		const text = await ui.input(prompt, "type your answer");
		if (text === undefined) return undefined;
		if (text.trim()) return text;
	}
}

/** One question as dialogs; `undefined` when the person cancelled any of them. */
export async function askQuestion(ui: Dialogs, question: Question): Promise<GivenAnswer | undefined> {
	const options = question.options ?? [];
	if (options.length === 0) {
		const text = await typed(ui, title(question));
		return text === undefined ? undefined : { question: question.question, answer: text };
	}
	if (!question.multiSelect) {
		const rows = [...options.map(row), OTHER];
		const chosen = await ui.select(title(question), rows);
		if (chosen === undefined) return undefined;
		const index = rows.indexOf(chosen);
		if (chosen === OTHER || index < 0) {
			const text = await typed(ui, `${title(question)} (your own answer)`);
			return text === undefined ? undefined : { question: question.question, answer: text };
		}
		return { question: question.question, answer: options[index].label };
	}
	const ticked = new Set<number>();
	let custom: string | undefined;
	for (;;) {
		const rows = options.map((o, i) => `${ticked.has(i) ? "☑" : "☐"} ${row(o)}`);
		if (custom !== undefined) rows.push(`☑ ${shown(custom)}`);
		rows.push(DONE, NONE, OTHER);
		const chosen = await ui.select(`${title(question)} (choose any, then ${DONE})`, rows);
		if (chosen === undefined) return undefined;
		if (chosen === DONE) {
			// Nothing ticked is no answer; "None of these" is one.
			if (ticked.size === 0 && custom === undefined) continue;
			const labels = options.filter((_, i) => ticked.has(i)).map((o) => o.label);
			if (custom !== undefined) labels.push(custom);
			return { question: question.question, answer: labels };
		}
		if (chosen === NONE) return { question: question.question, answer: [] };
		if (chosen === OTHER) {
			const text = await typed(ui, `${title(question)} (your own answer, added to the ticked ones)`);
			if (text === undefined) return undefined;
			custom = text;
			continue;
		}
		const index = rows.indexOf(chosen);
		if (index < 0) continue;
		if (index < options.length) {
			if (ticked.has(index)) ticked.delete(index);
			else ticked.add(index);
		} else {
			custom = undefined;
		}
	}
}

/** Every question in order; `undefined` as soon as one is cancelled (nothing partial is sent). */
export async function askAll(ui: Dialogs, questions: Question[]): Promise<GivenAnswer[] | undefined> {
	const answers: GivenAnswer[] = [];
	for (const question of questions) {
		const answer = await askQuestion(ui, question);
		if (answer === undefined) return undefined;
		answers.push(answer);
	}
	return answers;
}
