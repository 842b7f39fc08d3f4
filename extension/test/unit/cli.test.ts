import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { cliError, initArgs, initTarget, runCli } from "../../cli";

const dirs: string[] = [];
after(() => {
	for (const d of dirs) {
		fs.rmSync(d, { recursive: true, force: true });
	}
});

function script(body: string): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxls-cli-"));
	dirs.push(dir);
	const file = path.join(dir, "fake");
	fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
	return file;
}

test("stdin reaches the command; stdout, stderr and the exit code come back", async () => {
	const bin = script('cat; echo "args: $*"; echo oops >&2; exit 3');
	const r = await runCli(bin, ["memory", "write", "--title", "a b"], { cwd: os.tmpdir(), stdin: "body\n" });
	assert.equal(r.code, 3);
	assert.equal(r.stdout, "body\nargs: memory write --title a b\n");
	assert.equal(r.stderr, "oops\n");
	assert.equal(cliError("ctxls memory write", r), "ctxls memory write failed: oops");
});

test("a command that ignores stdin still completes", async () => {
	const r = await runCli(script("exit 0"), [], { cwd: os.tmpdir(), stdin: "x".repeat(1 << 20) });
	assert.equal(r.code, 0);
});

test("a missing binary rejects with its path", async () => {
	await assert.rejects(runCli("/nonexistent/ctxls", [], { cwd: os.tmpdir() }), /\/nonexistent\/ctxls/);
});

test("a hung command is killed at the timeout", async () => {
	const started = Date.now();
	await assert.rejects(runCli(script("exec sleep 30"), [], { cwd: os.tmpdir(), timeoutMs: 200 }), /did not finish/);
	assert.ok(Date.now() - started < 5000);
});

test("a failure with nothing printed names the exit code", () => {
	assert.equal(cliError("ctxls init", { code: 2, stdout: "", stderr: "" }), "ctxls init failed (exit 2)");
});

test("init goes into the shared settings only for a ctxls on PATH", () => {
	assert.deepEqual(initArgs("/w", { path: "/usr/local/bin/ctxls", source: "PATH" }), ["init", "--root", "/w", "--no-index"]);
	assert.equal(initTarget(initArgs("/w", { path: "/usr/local/bin/ctxls", source: "PATH" })), ".claude/settings.json");
	const bundled = initArgs("/w", { path: "/home/a/.vscode/extensions/ctxls/dist/bin/linux-x64/ctxls", source: "bundled" });
	assert.deepEqual(bundled, ["init", "--root", "/w", "--no-index", "--local", "--command", "/home/a/.vscode/extensions/ctxls/dist/bin/linux-x64/ctxls"]);
	assert.equal(initTarget(bundled), ".claude/settings.local.json");
	assert.ok(initArgs("/w", { path: "/opt/ctxls", source: "setting" }).includes("--local"));
});
