// The lint of the web page's script (the page of `ask-user --mode web` and `ask-user serve`):
// ESLint's recommended rules, for a classic browser script in strict mode. .ci/run names the
// script; this configuration applies to any path of the repository it is given.
import js from "@eslint/js";
import globals from "globals";

export default [
	{
		basePath: "../../..",
		files: ["**/*.js"],
		...js.configs.recommended,
		languageOptions: {
			ecmaVersion: 2022,
			sourceType: "script",
			globals: { ...globals.browser },
		},
		linterOptions: { reportUnusedDisableDirectives: "error" },
		rules: {
			...js.configs.recommended.rules,
			eqeqeq: "error",
			"no-var": "error",
			"prefer-const": "error",
			strict: ["error", "global"],
		},
	},
];
