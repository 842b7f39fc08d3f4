import assert from "node:assert/strict";
import { test } from "node:test";
import { renderStatus, tokens } from "../../status";

test("tokens read like budgets", () => {
	assert.deepEqual([0, 812, 1000, 1234, 9999, 12_345].map(tokens), ["0", "812", "1k", "1.2k", "10k", "12k"]);
});

test("status bar text for each state", () => {
	const root = "/w";
	const cases: [string, Parameters<typeof renderStatus>, string, boolean][] = [
		["disabled hides", [{ kind: "disabled" }, undefined], "", false],
		["untrusted", [{ kind: "untrusted" }, undefined], "$(shield) ctxls", true],
		["starting", [{ kind: "starting" }, undefined], "$(sync~spin) ctxls", true],
		["restarting", [{ kind: "restarting", inSeconds: 4 }, undefined], "$(debug-disconnect) ctxls", true],
		[
			"indexing with progress",
			[{ kind: "running" }, { root, state: "indexing", filesDone: 1200, filesTotal: 9000 }],
			"$(sync~spin) ctxls: indexing 1,200/9,000",
			true,
		],
		[
			"indexing, total unknown",
			[{ kind: "running" }, { root, state: "indexing", filesDone: 0, filesTotal: 0 }],
			"$(sync~spin) ctxls: indexing",
			true,
		],
		[
			"ready: entities and auto-context size",
			[{ kind: "running" }, { root, state: "ready", entities: 51234, contextTokens: 1234, contextBytes: 4936 }],
			"$(book) 51,234 · 1.2k tok",
			true,
		],
		["server error", [{ kind: "running" }, { root, state: "error", message: "disk full" }], "$(error) ctxls", true],
	];
	for (const [name, args, text, visible] of cases) {
		const v = renderStatus(...args);
		assert.equal(v.text, text, name);
		assert.equal(v.visible, visible, name);
	}
});

test("tooltips say what the figures are", () => {
	const v = renderStatus(
		{ kind: "running" },
		{ root: "/w", state: "ready", entities: 10, contextTokens: 0, contextBytes: 0 },
	);
	assert.match(v.tooltip, /10 entities indexed in \/w/);
	assert.match(v.tooltip, /Auto-context: empty/);
	const f = renderStatus({ kind: "failed", message: "ctxls not found" }, undefined);
	assert.equal(f.tooltip, "ctxls not found");
	assert.equal(f.error, true);
});
