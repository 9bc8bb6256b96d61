// What the pi transcript draws: hostile text is shown visibly, a malformed call never throws,
// and a secret answer is never drawn.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import { callLines, resultLines, type Styles } from "../render.ts";

/** A theme that marks its styles in plain text, so the tests read what is drawn. */
const theme: Styles = {
	fg: (role, text) => `<${role}>${text}</${role}>`,
	bold: (text) => `*${text}*`,
};

/** True when `text` holds a character a terminal would act on, or one that hides text. */
function unsafe(text: string): boolean {
	return /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2069\u2028\u2029\ufeff\u2800\ud800-\udfff]/u.test(text);
}

/** The hostile-input corpus of ask-cli/tests (the tests run from the repository root). */
function corpus(): { name: string; call: unknown }[] {
	const dir = path.join(process.cwd(), "ask-cli", "tests", "corpus");
	return fs
		.readdirSync(dir)
		.filter((name) => name.endsWith(".json") && name !== "expected.json")
		.map((name) => ({ name, call: JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")) as unknown }));
}

test("every call of the corpus is drawn with no control, bidi or invisible character", () => {
	const entries = corpus();
	assert.ok(entries.length > 50, `${entries.length} corpus entries`);
	for (const { name, call } of entries) {
		const drawn = callLines(call, theme);
		assert.ok(!unsafe(drawn), `${name}: ${JSON.stringify(drawn)}`);
	}
});

test("hostile text is shown visibly, not dropped", () => {
	const call = {
		questions: [
			{ question: "Ready?\u001b[2J\u001b[H", header: "\u001b]0;pwned\u0007", options: [{ label: "invoice\u202efdp.exe" }, { label: "SQLite" }] },
		],
	};
	assert.equal(
		callLines(call, theme),
		"<toolTitle>*ask_user*</toolTitle>\n  <accent>[^[]0;pwned^G] </accent>Ready?^[[2J^[[H\n    <dim>invoice\\u{202e}fdp.exe · SQLite</dim>",
	);
});

test("a question of several lines keeps its lines, indented", () => {
	const call = { questions: [{ question: "First line\nSecond\tline?" }] };
	assert.equal(callLines(call, theme), "<toolTitle>*ask_user*</toolTitle>\n  First line\n  Second    line?");
});

test("a malformed call never throws: it is drawn as an invalid call", () => {
	const malformed: unknown[] = [
		undefined,
		null,
		5,
		"questions",
		[],
		{},
		{ questions: 5 },
		{ questions: "x" },
		{ questions: [null] },
		{ questions: [5] },
		{ questions: [{ question: 5 }] },
		{ questions: [{ question: "Q?", header: 7 }] },
		{ questions: [{ question: "Q?", options: "a, b" }] },
		{ questions: [{ question: "Q?", options: [null] }] },
		{ questions: [{ question: "Q?", options: [{ label: ["a"] }] }] },
		{ questions: [{ question: "Q?", options: [{ description: "no label" }] }] },
		{ questions: [{ question: "Q?", multiSelect: "yes" }] },
		{ questions: [{ question: { toString: "x" } }] },
	];
	for (const args of malformed) {
		assert.equal(callLines(args, theme), "<toolTitle>*ask_user*</toolTitle> <error>invalid call</error>", JSON.stringify(args));
	}
});

test("while the arguments stream in, what is still missing is not an invalid call", () => {
	assert.equal(callLines({}, theme, false), "<toolTitle>*ask_user*</toolTitle>");
	assert.equal(
		callLines({ questions: [{ question: "Which data", options: [{ label: "Post" }, {}] }] }, theme, false),
		"<toolTitle>*ask_user*</toolTitle>\n  Which data\n    <dim>Post</dim>",
	);
	// A field of the wrong type never becomes right.
	assert.equal(callLines({ questions: 5 }, theme, false), "<toolTitle>*ask_user*</toolTitle> <error>invalid call</error>");
});

const SECRET_RECORD = {
	questions: [
		{ question: "Paste the deploy token", multiSelect: false, secret: true },
		{ question: "Which region?", multiSelect: false, options: [{ label: "eu" }, { label: "us" }] },
	],
	answers: [
		{ question: "Paste the deploy token", answer: "tok-123", wasCustom: true, notes: "expires Friday" },
		{ question: "Which region?", answer: "eu", selectedOption: "eu", wasCustom: false, notes: "closest" },
	],
	answeredAt: 0,
	mode: "embedded",
	status: "answered",
};

test("the answers are drawn, with their notes; a secret answer and its note only as the placeholder", () => {
	// The binary's details already hold "[secret]"; even details that do not are drawn masked.
	const drawn = resultLines(SECRET_RECORD, "", theme);
	assert.equal(
		drawn,
		"<success>✓</success> Paste the deploy token <dim>→</dim> [secret]<dim> (typed)</dim>\n  <dim>note: [secret]</dim>\n" +
			"<success>✓</success> Which region? <dim>→</dim> eu\n  <dim>note: closest</dim>",
	);
	assert.ok(!drawn.includes("tok-123") && !drawn.includes("expires Friday"));
	const reply = resultLines({ ...SECRET_RECORD, reply: "token tok-123, eu" }, "", theme);
	assert.equal(reply, "<success>✓</success> replied: [secret]");
});

test("a multi-select answer marks only its typed text as typed, and none of these is said", () => {
	const record = (answer: unknown, wasCustom: boolean) => ({
		questions: [
			{ question: "Which features?", multiSelect: true, options: [{ label: "Auth" }, { label: "SSO, Google only" }] },
		],
		answers: [{ question: "Which features?", answer, wasCustom }],
		answeredAt: 0,
		mode: "print",
		status: "answered",
	});
	const arrow = "<success>✓</success> Which features? <dim>→</dim> ";
	assert.equal(resultLines(record(["Auth", "SSO, Google only"], false), "", theme), `${arrow}Auth, SSO, Google only`);
	assert.equal(resultLines(record(["Auth", "GraphQL"], true), "", theme), `${arrow}Auth + GraphQL<dim> (typed)</dim>`);
	assert.equal(
		resultLines(record(["Auth, SSO, Google only"], true), "", theme),
		`${arrow}Auth, SSO, Google only<dim> (typed)</dim>`,
	);
	assert.equal(resultLines(record([], false), "", theme), `${arrow}<dim>none of these</dim>`);
});

test("the other outcomes, and a result that is not a record, are drawn safely", () => {
	assert.equal(resultLines({ ...SECRET_RECORD, status: "cancelled", answers: [] }, "", theme), "<warning>The questions were cancelled.</warning>");
	assert.equal(
		resultLines({ status: "pending", answers: [], pendingFile: "/p/.pi/pending-questions.json" }, "", theme),
		"<warning>Questions pending in /p/.pi/pending-questions.json; answer with pi -c -p …</warning>",
	);
	for (const details of [undefined, null, {}, [], "x", { status: 5 }]) {
		assert.equal(resultLines(details, "refused\u001b[2J", theme), "<error>refused^[[2J</error>");
	}
	// Answers of odd shapes are drawn as far as they can be.
	assert.equal(
		resultLines({ status: "answered", answers: [{ question: 5, answer: ["a", 7, "b"] }, 9], questions: "x" }, "", theme),
		"<success>✓</success>  <dim>→</dim> a, b",
	);
});
