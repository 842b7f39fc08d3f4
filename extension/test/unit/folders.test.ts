import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { autoContextFile, folderFor, isCtxlsOutput } from "../../folders";

test("a file belongs to the folder with the longest matching root", () => {
	const roots = ["/w", "/w/sub", "/other"];
	const cases: [string | undefined, string | undefined][] = [
		["/w/a.go", "/w"],
		["/w/sub/b.go", "/w/sub"],
		["/w/subway/c.go", "/w"],
		["/other/x", "/other"],
		["/elsewhere/x", undefined],
		["/w", "/w"],
		[undefined, undefined],
	];
	for (const [file, want] of cases) {
		assert.equal(folderFor(roots, file), want, String(file));
	}
});

test("the auto-context file is under .ctxls", () => {
	assert.equal(autoContextFile("/w"), path.join("/w", ".ctxls", "auto-context.md"));
});

test("files under .ctxls are ctxls's own output", () => {
	assert.equal(isCtxlsOutput("/w/.ctxls/auto-context.md"), true);
	assert.equal(isCtxlsOutput("C:\\w\\.ctxls\\auto-context.md"), true);
	assert.equal(isCtxlsOutput("/w/docs/ctxls.md"), false);
	assert.equal(isCtxlsOutput("/w/.ctxlsignore"), false);
});
