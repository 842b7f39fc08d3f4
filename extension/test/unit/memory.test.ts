import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryArgs, memoryBody, parseTags, suggestedTags } from "../../memory";

const sel = {
	root: "/w",
	file: "/w/auth/token.go",
	startLine: 10,
	endLine: 12,
	languageId: "go",
	text: "func Issue() {\n\treturn\n}\n",
};

test("the body says where the code is and fences it", () => {
	assert.equal(memoryBody(sel, ""), "From `auth/token.go:10-12`:\n\n```go\nfunc Issue() {\n\treturn\n}\n```\n");
	const one = memoryBody({ ...sel, endLine: 10, text: "x := 1" }, "Keep this.");
	assert.equal(one, "Keep this.\n\nFrom `auth/token.go:10`:\n\n```go\nx := 1\n```\n");
});

test("code that holds a fence gets a longer one", () => {
	assert.match(memoryBody({ ...sel, languageId: "markdown", text: "```go\nx\n```" }, ""), /^~~~~markdown$/m);
});

test("tags: suggested from the selection, parsed from what was typed", () => {
	assert.deepEqual(suggestedTags(sel), ["go", "token"]);
	assert.deepEqual(suggestedTags({ ...sel, file: "/w/go.go" }), ["go"]);
	assert.deepEqual(suggestedTags({ ...sel, languageId: "typescriptreact", file: "/w/Token_Store.tsx" }), [
		"typescriptreact",
		"token-store",
	]);
	assert.deepEqual(parseTags(" auth, Tokens  go,,auth token_refresh "), ["auth", "tokens", "go", "token-refresh"]);
	assert.deepEqual(parseTags(" , "), []);
});

test("argv of ctxls memory write", () => {
	assert.deepEqual(memoryArgs(sel, "gotcha", "Tokens expire", ["auth", "go"]), [
		"memory",
		"write",
		"--root",
		"/w",
		"--type",
		"gotcha",
		"--title",
		"Tokens expire",
		"--tags",
		"auth,go",
		"--files",
		"auth/token.go",
		"--stdin",
	]);
});
