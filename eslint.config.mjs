// ESLint for the extension's TypeScript: the recommended and type-checked rules, no `any`.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
	{ ignores: ["dist/", "out/", "node_modules/", ".cache/", "extension/*.mjs", "eslint.config.mjs"] },
	js.configs.recommended,
	...tseslint.configs.strictTypeChecked,
	{
		languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
		rules: {
			"@typescript-eslint/no-explicit-any": "error",
			"@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
			"@typescript-eslint/no-confusing-void-expression": "off",
		},
	},
	{
		// node:test's test() returns a promise the runner awaits.
		files: ["extension/test/**/*.ts"],
		rules: { "@typescript-eslint/no-floating-promises": "off" },
	},
);
