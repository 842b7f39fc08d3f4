import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLogLine } from "../../serverLog";

test("zap JSON lines keep their level and fields, lose the timestamp", () => {
	const cases: [string, ReturnType<typeof parseLogLine>][] = [
		[
			'{"level":"debug","ts":"2026-11-22T21:31:33.614Z","msg":"handled","method":"initialize","took":0.18}',
			{ level: "debug", text: "handled method=initialize took=0.18" },
		],
		['{"level":"info","msg":"indexed","root":"/w","files":3}', { level: "info", text: "indexed root=/w files=3" }],
		['{"level":"warn","msg":"slow"}', { level: "warn", text: "slow" }],
		['{"level":"fatal","msg":"boom"}', { level: "error", text: "boom" }],
		['{"msg":"no level"}', { level: "info", text: "no level" }],
		["panic: runtime error: index out of range", { level: "error", text: "panic: runtime error: index out of range" }],
		["[1,2]", { level: "error", text: "[1,2]" }],
		["null", { level: "error", text: "null" }],
	];
	for (const [line, want] of cases) {
		assert.deepEqual(parseLogLine(line), want, line);
	}
});
