// The generated display rules behave as ask-core's `sanitize_for_display` (the cases of
// ask-core/src/display.rs), and what they give is safe to draw.

import assert from "node:assert/strict";
import { test } from "node:test";

import { isRecommended, sanitize, sanitizeLines } from "../display.ts";

function check(input: string, expected: string) {
	assert.equal(sanitize(input), expected);
}

/** A character a terminal would act on, or one that hides or reorders text. */
function dangerous(text: string): boolean {
	return /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2069\u2028\u2029\ufeff\u2800\ud800-\udfff]/u.test(text);
}

test("escape sequences become caret notation", () => {
	check("\u001b[2J\u001b[H", "^[[2J^[[H");
	check("\u001b]0;title\u0007", "^[]0;title^G");
	check("\u001b]52;c;aGk=\u0007", "^[]52;c;aGk=^G");
	check("nul\u0000del\u007f", "nul^@del^?");
	check("cr\rlf", "cr^Mlf");
});

test("C1 controls and invisible characters become escapes", () => {
	check("\u009b2J", "\\u{9b}2J");
	check("a\u202eb\u2066c", "a\\u{202e}b\\u{2066}c");
	check("zero\u200bwidth\ufeff", "zero\\u{200b}width\\u{feff}");
	check("tag\u{e0041}", "tag\\u{e0041}");
	check("\u2800\u2800", "\\u{2800}\\u{2800}");
	check("SQLite\ufe00", "SQLite\\u{fe00}");
	check("soft\u00adhyphen", "soft\\u{ad}hyphen");
});

test("selectors and joiners are kept after the characters they apply to", () => {
	check("❤\ufe0f ☺\ufe0e 1\ufe0f\u20e3", "❤\ufe0f ☺\ufe0e 1\ufe0f\u20e3");
	check("葛\u{e0100}飾", "葛\u{e0100}飾");
	check("🏳\ufe0f\u200d🌈", "🏳\ufe0f\u200d🌈");
	check("👩\u200d💻", "👩\u200d💻");
	check("a\u200db", "a\\u{200d}b");
	check("a\ufe0f\u200d👩", "a\\u{fe0f}\\u{200d}👩");
	check("👩\u200d\ufe0f", "👩\\u{200d}\\u{fe0f}");
});

test("layout characters stay readable, and sanitizeLines keeps the lines", () => {
	check("a\tb", "a    b");
	check("a\nb", "a⏎b");
	assert.deepEqual(sanitizeLines("one\n\u001b[2Jtwo\tthree"), ["one", "^[[2Jtwo    three"]);
});

test("a lone surrogate, which only a JavaScript string can hold, is shown as an escape", () => {
	check("a\ud800b", "a\\u{d800}b");
	check("\udfff", "\\u{dfff}");
	check("🎉", "🎉");
});

test("plain text is shown as written", () => {
	for (const text of ["héllo 世界 🎉", "PostgreSQL (Recommended)", "^[[2J is not an escape", "Zalgo Z\u0351\u0334a\u0353l"]) {
		check(text, text);
	}
});

test("sanitising any text gives safe text, and sanitising it again changes nothing", () => {
	// A fixed seed: the same strings on every run.
	let seed = 0x2545f491;
	const next = () => {
		seed ^= seed << 13;
		seed ^= seed >>> 17;
		seed ^= seed << 5;
		return seed >>> 0;
	};
	const alphabet = [..."a1葛👩🌈❤\n\t\u001b\u0007\u007f\u009b\u200d\u200b\u202e\u2066\ufe00\ufe0e\ufe0f\u2800\ufeff\u3164"]
		.concat(["\u{e0100}", "\u{e0041}", "\ud800", "\udc00"]);
	for (let run = 0; run < 2000; run++) {
		let text = "";
		const length = next() % 24;
		for (let i = 0; i < length; i++) {
			text += next() % 5 === 0 ? String.fromCodePoint(next() % 0x110000) : alphabet[next() % alphabet.length];
		}
		const once = sanitize(text);
		assert.ok(!dangerous(once), JSON.stringify({ text, once }));
		assert.equal(sanitize(once), once, JSON.stringify(text));
	}
});

test("the recommended suffix is found as ask-core finds it", () => {
	assert.ok(isRecommended("PostgreSQL (Recommended)"));
	assert.ok(isRecommended("PostgreSQL (recommended)  "));
	assert.ok(!isRecommended("Recommended"));
	assert.ok(!isRecommended("é"));
	assert.ok(!isRecommended("SQLite"));
});
