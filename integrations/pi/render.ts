/**
 * How a call and its result look in pi's transcript: the questions, then the answers.
 */

import type { Answer, Question, Record } from "./ask-user.ts";

/** Styling functions of pi's theme that this uses. */
export interface Styles {
	fg(role: string, text: string): string;
	bold(text: string): string;
}

function answerText(answer: Answer): string {
	return Array.isArray(answer.answer) ? answer.answer.join(", ") : answer.answer;
}

/** The call: one line per question, its options dimmed. */
export function callLines(questions: Question[] | undefined, theme: Styles): string {
	let text = theme.fg("toolTitle", theme.bold("ask_user"));
	for (const q of questions ?? []) {
		const header = q.header ? theme.fg("accent", `[${q.header}] `) : "";
		text += `\n  ${header}${q.question}`;
		const labels = (q.options ?? []).map((o) => o.label);
		if (labels.length) {
			const kind = q.multiSelect ? " (any of)" : "";
			text += `\n    ${theme.fg("dim", labels.join(" · ") + kind)}`;
		}
	}
	return text;
}

/** The result: each question with its answer, or what happened instead. */
export function resultLines(record: Record | null | undefined, content: string, theme: Styles): string {
	if (!record) return theme.fg("error", content);
	switch (record.status) {
		case "answered": {
			if (record.reply !== undefined) {
				return `${theme.fg("success", "✓")} replied: ${record.reply}`;
			}
			return record.answers
				.map((a) => `${theme.fg("success", "✓")} ${a.question} ${theme.fg("dim", "→")} ${answerText(a)}${a.wasCustom ? theme.fg("dim", " (typed)") : ""}`)
				.join("\n");
		}
		case "cancelled":
			return theme.fg("warning", "The questions were cancelled.");
		case "pending":
			return theme.fg("warning", `Questions pending in ${record.pendingFile ?? ".pi/pending-questions.json"}; answer with pi -c -p …`);
		default:
			return theme.fg("warning", content);
	}
}
