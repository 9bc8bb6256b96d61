/**
 * RPC mode: pi carries only its own dialogs (select, input) to an RPC client, so each question
 * becomes a sequence of them, and `ask-user --rpc` is driven with the answers.
 */

import type { Answer, Question } from "./ask-user.ts";

/** The dialogs of `ctx.ui` that this needs. Each resolves to `undefined` when cancelled. */
export interface Dialogs {
	select(title: string, options: string[]): Promise<string | undefined>;
	input(title: string, placeholder?: string): Promise<string | undefined>;
}

export const OTHER = "Other…";
export const DONE = "Done";

function title(question: Question): string {
	return question.header ? `[${question.header}] ${question.question}` : question.question;
}

/** An option as a row of a select: its label (with "(Recommended)" as written) and description. */
function row(option: { label: string; description?: string }): string {
	return option.description ? `${option.label} — ${option.description}` : option.label;
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
export async function askQuestion(ui: Dialogs, question: Question): Promise<Answer | undefined> {
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
		if (custom !== undefined) rows.push(`☑ ${custom}`);
		rows.push(DONE, OTHER);
		const chosen = await ui.select(`${title(question)} (choose any, then ${DONE})`, rows);
		if (chosen === undefined) return undefined;
		if (chosen === DONE) {
			if (ticked.size === 0 && custom === undefined) continue;
			const labels = options.filter((_, i) => ticked.has(i)).map((o) => o.label);
			if (custom !== undefined) labels.push(custom);
			return { question: question.question, answer: labels };
		}
		if (chosen === OTHER) {
			const text = await typed(ui, `${title(question)} (your own answer)`);
			if (text === undefined) return undefined;
			custom = text;
			continue;
		}
		const index = rows.indexOf(chosen);
		if (index < options.length) {
			if (ticked.has(index)) ticked.delete(index);
			else ticked.add(index);
		} else {
			custom = undefined;
		}
	}
}

/** Every question in order; `undefined` as soon as one is cancelled (nothing partial is sent). */
export async function askAll(ui: Dialogs, questions: Question[]): Promise<Answer[] | undefined> {
	const answers: Answer[] = [];
	for (const question of questions) {
		const answer = await askQuestion(ui, question);
		if (answer === undefined) return undefined;
		answers.push(answer);
	}
	return answers;
}
