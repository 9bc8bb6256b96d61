// RPC mode's dialogs: each question as pi's select and input dialogs, their titles and rows
// sanitised, and only readable requests asked.

import assert from "node:assert/strict";
import { test } from "node:test";

import { type Dialogs, DONE, NONE, OTHER, askAll, readQuestions } from "../dialogs.ts";

/** pi's dialogs, answered from a script: each step picks the row that starts with its text. */
function scripted(steps: (string | undefined)[]): Dialogs & { seen: string[] } {
	const seen: string[] = [];
	return {
		seen,
		async select(title, options) {
			seen.push(`select ${title} | ${options.join(" | ")}`);
			const step = steps.shift();
			return step === undefined ? undefined : options.find((o) => o.startsWith(step));
		},
		async input(title) {
			seen.push(`input ${title}`);
			return steps.shift();
		},
	};
}

test("single choice, Other and free text", async () => {
	const questions = readQuestions([
		{ question: "Which database?", header: "DB", options: [{ label: "PostgreSQL", description: "Battle-tested" }, { label: "SQLite" }] },
		{ question: "Which database again?", options: [{ label: "a" }, { label: "b" }] },
		{ question: "Name?" },
	]);
	assert.ok(questions);
	const ui = scripted(["SQLite", OTHER, "mine", "orders"]);
	assert.deepEqual(await askAll(ui, questions), [
		{ question: "Which database?", answer: "SQLite" },
		{ question: "Which database again?", answer: "mine" },
		{ question: "Name?", answer: "orders" },
	]);
	assert.deepEqual(ui.seen, [
		"select [DB] Which database? | PostgreSQL — Battle-tested | SQLite | Other…",
		"select Which database again? | a | b | Other…",
		"input Which database again? (your own answer)",
		"input Name?",
	]);
});

test("multi-select ticks rows until Done; a cancel sends nothing", async () => {
	const questions = readQuestions([{ question: "Which?", multiSelect: true, options: [{ label: "a" }, { label: "b" }] }]);
	assert.ok(questions);
	assert.deepEqual(await askAll(scripted(["☐ b", "☐ a", DONE]), questions), [{ question: "Which?", answer: ["a", "b"] }]);
	assert.equal(await askAll(scripted(["☐ b", undefined]), questions), undefined);
});

test("multi-select: Done with nothing ticked asks again, None of these answers [], Other adds to the ticks", async () => {
	const questions = readQuestions([{ question: "Which?", multiSelect: true, options: [{ label: "a" }, { label: "b" }] }]);
	assert.ok(questions);
	const none = scripted([DONE, NONE]);
	assert.deepEqual(await askAll(none, questions), [{ question: "Which?", answer: [] }]);
	assert.deepEqual(none.seen, [
		"select Which? (choose any, then Done) | ☐ a | ☐ b | Done | None of these | Other…",
		"select Which? (choose any, then Done) | ☐ a | ☐ b | Done | None of these | Other…",
	]);
	const typed = scripted(["☐ a", OTHER, "c", DONE]);
	assert.deepEqual(await askAll(typed, questions), [{ question: "Which?", answer: ["a", "c"] }]);
	assert.ok(typed.seen.includes("input Which? (your own answer, added to the ticked ones)"), typed.seen.join("\n"));
});

test("titles and rows are sanitised", async () => {
	const questions = readQuestions([{ question: "Ready?\u001b[2J", header: "\u202eH", options: [{ label: "x\u0007" }, { label: "y" }] }]);
	assert.ok(questions);
	const ui = scripted(["x^G"]);
	assert.deepEqual(await askAll(ui, questions), [{ question: "Ready?\u001b[2J", answer: "x\u0007" }]);
	assert.deepEqual(ui.seen, ["select [\\u{202e}H] Ready?^[[2J | x^G | y | Other…"]);
});

test("a request whose questions cannot be read is not asked", () => {
	for (const questions of [[5], [{}], [{ question: "Q?", options: "a" }], [{ question: "Q?", options: [{ label: 1 }] }]]) {
		assert.equal(readQuestions(questions), undefined, JSON.stringify(questions));
	}
});
