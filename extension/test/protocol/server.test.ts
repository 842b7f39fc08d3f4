// The extension's side of docs/protocol.md, against the real built ctxls:
// what the extension sends and reads, through vscode-languageserver-protocol.

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
	createProtocolConnection,
	DidChangeConfigurationNotification,
	DidChangeTextDocumentNotification,
	DidOpenTextDocumentNotification,
	ExecuteCommandRequest,
	ExitNotification,
	HoverRequest,
	InitializedNotification,
	InitializeRequest,
	type MarkupContent,
	type ProtocolConnection,
	ShutdownRequest,
	StreamMessageReader,
	StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { Method, type Activity, type ContextResult, type QueryResult, ServerCommand, type Status } from "../../protocol";
import { defaultSettings, serverArgs } from "../../settings";
import { files, readIfExists, waitFor, workspace } from "../fixture";

const bin = process.env.CTXLS_BIN ?? "";
const root = workspace("ctxls-protocol-");
const uri = (rel: string): string => pathToFileURL(path.join(root, rel)).toString();
const statuses: Status[] = [];
let child: ChildProcess;
let conn: ProtocolConnection;
let stderr = "";

before(async () => {
	assert.ok(bin !== "" && fs.existsSync(bin), "CTXLS_BIN must name the built ctxls (make ext-protocol-test sets it)");
	// The same argv the extension uses (vscode-languageclient appends --stdio), debounce 0 for the test.
	child = spawn(bin, [...serverArgs(defaultSettings), "--debounce", "0", "--stdio"], { cwd: root });
	child.stderr?.on("data", (b: Buffer) => (stderr += b.toString()));
	if (child.stdout === null || child.stdin === null) {
		throw new Error("no stdio");
	}
	conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
	conn.onNotification(Method.status, (s: Status) => {
		statuses.push(s);
	});
	conn.listen();
	const init = await conn.sendRequest(InitializeRequest.type, {
		processId: process.pid,
		rootUri: pathToFileURL(root).toString(),
		workspaceFolders: [{ uri: pathToFileURL(root).toString(), name: "shop" }],
		capabilities: {},
		initializationOptions: defaultSettings,
	});
	assert.equal(init.serverInfo?.name, "ctxls");
	assert.deepEqual(init.capabilities.executeCommandProvider?.commands.sort(), [
		ServerCommand.query,
		ServerCommand.reindex,
		ServerCommand.showContext,
	]);
	await conn.sendNotification(InitializedNotification.type, {});
	await waitFor("ctxls/status ready with entities", 30_000, () =>
		statuses.find((s) => s.state === "ready" && (s.entities ?? 0) > 0),
	);
});

after(() => {
	if (child.exitCode === null) {
		child.kill("SIGKILL");
	}
	conn.dispose();
	fs.rmSync(root, { recursive: true, force: true });
});

test("indexing is reported as ctxls/status for the folder", () => {
	const ready = statuses.find((s) => s.state === "ready");
	assert.ok(ready !== undefined);
	assert.equal(ready.root, root);
	assert.ok((ready.entities ?? 0) >= 6, `entities: ${ready.entities ?? 0}`);
});

test("hover on a call shows the callee's signature", async () => {
	await conn.sendNotification(DidOpenTextDocumentNotification.type, {
		textDocument: { uri: uri("auth/login.go"), languageId: "go", version: 1, text: files["auth/login.go"] ?? "" },
	});
	const lines = (files["auth/login.go"] ?? "").split("\n");
	const line = lines.findIndex((l) => l.includes("IssueToken("));
	const character = (lines[line] ?? "").indexOf("IssueToken") + 2;
	const hover = await conn.sendRequest(HoverRequest.type, {
		textDocument: { uri: uri("auth/login.go") },
		position: { line, character },
	});
	const text = (hover?.contents as MarkupContent | undefined)?.value ?? "";
	assert.match(text, /func IssueToken\(subject string, ttl time\.Duration\) Token/);
});

test("ctxls/activity and ctxls/context: the figures the status bar shows", async () => {
	const activity: Activity = { type: "file_open", filePath: path.join(root, "auth/token.go"), timestamp: new Date().toISOString() };
	await conn.sendNotification(Method.activity, activity);
	const ctx = await conn.sendRequest<ContextResult>(Method.context, { filePath: path.join(root, "auth/token.go"), refresh: true });
	assert.equal(ctx.root, root);
	assert.ok(ctx.entities > 0);
	assert.equal(ctx.bytes, Buffer.byteLength(ctx.markdown));
	assert.match(ctx.markdown, /<auto-context>/);
});

test("executeCommand ctxls.query: ranked entities with paths relative to root", async () => {
	const r = (await conn.sendRequest(ExecuteCommandRequest.type, {
		command: ServerCommand.query,
		arguments: ["IssueToken", { limit: 5, activeFile: path.join(root, "main.go") }],
	})) as QueryResult;
	assert.equal(r.root, root);
	const hit = r.results.find((h) => h.name === "IssueToken");
	assert.ok(hit, JSON.stringify(r.results));
	assert.equal(hit.path, "auth/token.go");
	assert.equal(hit.line, 12);
});

test("executeCommand ctxls.reindex and ctxls.showContext", async () => {
	const summaries = (await conn.sendRequest(ExecuteCommandRequest.type, {
		command: ServerCommand.reindex,
		arguments: [root],
	})) as { root: string }[];
	assert.deepEqual(summaries.map((s) => s.root), [root]);
	const ctx = (await conn.sendRequest(ExecuteCommandRequest.type, {
		command: ServerCommand.showContext,
		arguments: [],
	})) as ContextResult;
	assert.equal(ctx.root, root);
});

test("configuration changes are accepted; an edit reaches .ctxls/auto-context.md", async () => {
	await conn.sendNotification(DidChangeConfigurationNotification.type, {
		settings: { ctxls: { ...defaultSettings, maxTokens: 2000 } },
	});
	const text = files["auth/login.go"] ?? "";
	const end = text.split("\n").length - 1;
	await conn.sendNotification(DidChangeTextDocumentNotification.type, {
		textDocument: { uri: uri("auth/login.go"), version: 2 },
		contentChanges: [
			{
				range: { start: { line: end, character: 0 }, end: { line: end, character: 0 } },
				text: "// RevokeSessions ends every session of user.\nfunc RevokeSessions(user string) int {\n\treturn 0\n}\n",
			},
		],
	});
	const md = await waitFor("auto-context.md naming the edited function", 10_000, () => {
		const t = readIfExists(path.join(root, ".ctxls", "auto-context.md"));
		return t?.includes("RevokeSessions") ? t : undefined;
	});
	assert.match(md, /^<!-- ctxls auto-context: generated /);
	assert.match(md, /active file auth\/login\.go/);
});

test("shutdown and exit end the server with status 0", async () => {
	await conn.sendRequest(ShutdownRequest.type);
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	await conn.sendNotification(ExitNotification.type);
	assert.equal(await exited, 0, stderr.slice(-2000));
});
