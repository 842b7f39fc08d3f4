// The commands of the palette. Each is a thin adapter: pick the folder, ask
// the server (or run one ctxls subcommand), show the answer.

import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import type { Binary } from "./binary";
import { cliError, initArgs, initTarget, runCli } from "./cli";
import { debounce } from "./debounce";
import { autoContextFile, folderFor } from "./folders";
import { memoryArgs, memoryBody, memoryTypes, parseTags, suggestedTags } from "./memory";
import { type ContextResult, Method, type QueryHit, type QueryResult, ServerCommand } from "./protocol";
import type { Server } from "./server";
import type { StatusBar } from "./statusBar";

/** What the commands work with. */
export interface Deps {
	server: Server;
	out: vscode.LogOutputChannel;
	status: StatusBar;
}

/** register registers every ctxls command. */
export function register(d: Deps): vscode.Disposable[] {
	const cmd = (id: string, fn: () => Promise<void>): vscode.Disposable =>
		vscode.commands.registerCommand(id, () =>
			fn().catch((e: unknown) => {
				const msg = e instanceof Error ? e.message : String(e);
				d.out.appendLine(`${id}: ${msg}`);
				void vscode.window.showErrorMessage(`ctxls: ${msg}`);
			}),
		);
	return [
		cmd("ctxls.showAutoContext", () => showAutoContext(d)),
		cmd("ctxls.queryContext", () => queryContext(d)),
		cmd("ctxls.addMemory", () => addMemory(d)),
		cmd("ctxls.reindexFolder", () => reindex(d)),
		cmd("ctxls.installHooks", () => installHooks(d)),
		cmd("ctxls.doctor", () => doctor(d)),
		cmd("ctxls.showLog", () => Promise.resolve(d.out.show())),
	];
}

/** pickFolder is the folder of the active editor, the only folder, or the one the person picks. */
async function pickFolder(): Promise<string | undefined> {
	const folders = vscode.workspace.workspaceFolders ?? [];
	if (folders.length === 0) {
		throw new Error("open a folder first: ctxls indexes workspace folders");
	}
	const roots = folders.map((f) => f.uri.fsPath);
	const active = folderFor(roots, vscode.window.activeTextEditor?.document.uri.fsPath);
	if (active !== undefined || roots.length === 1) {
		return active ?? roots[0];
	}
	const pick = await vscode.window.showWorkspaceFolderPick({ placeHolder: "Which folder?" });
	return pick?.uri.fsPath;
}

function binaryPath(d: Deps): string {
	return binary(d).path;
}

function binary(d: Deps): Binary {
	if (!vscode.workspace.isTrusted) {
		throw new Error("ctxls runs only in a trusted workspace (Manage Workspace Trust)");
	}
	const bin = d.server.binary();
	if ("error" in bin) {
		throw new Error(bin.error);
	}
	return bin;
}

async function showAutoContext(d: Deps): Promise<void> {
	const root = await pickFolder();
	if (root === undefined) {
		return;
	}
	const file = autoContextFile(root);
	if (d.server.running() !== undefined) {
		const ctx = await d.server.request<ContextResult>(Method.context, { filePath: root });
		d.status.update({
			root: ctx.root,
			state: "ready",
			entities: ctx.entities,
			contextTokens: ctx.tokens,
			contextBytes: ctx.bytes,
			contextFile: file,
		});
	}
	if (!fs.existsSync(file)) {
		void vscode.window.showInformationMessage(
			`No auto-context yet for ${path.basename(root)}: open or edit a file and ctxls writes ${file}.`,
		);
		return;
	}
	await vscode.commands.executeCommand("markdown.showPreviewToSide", vscode.Uri.file(file));
}

interface HitItem extends vscode.QuickPickItem {
	hit: QueryHit;
	root: string;
}

async function queryContext(d: Deps): Promise<void> {
	const activeFile = vscode.window.activeTextEditor?.document.uri.fsPath;
	const qp = vscode.window.createQuickPick<HitItem>();
	qp.placeholder = "Ask ctxls: a symbol, a path, or a question about the code";
	qp.matchOnDescription = true;
	qp.matchOnDetail = true;
	let generation = 0;
	const run = async (text: string): Promise<void> => {
		const mine = ++generation;
		if (text.trim() === "") {
			qp.items = [];
			return;
		}
		qp.busy = true;
		try {
			const opts = activeFile !== undefined ? { limit: 20, activeFile } : { limit: 20 };
			const r = await d.server.executeCommand<QueryResult>(ServerCommand.query, [text, opts]);
			if (mine === generation) {
				qp.items = r.results.map((hit) => ({
					label: hit.name,
					description: `${hit.kind} · ${hit.path}:${hit.line}`,
					detail: hit.signature,
					alwaysShow: true,
					hit,
					root: r.root,
				}));
			}
		} catch (e) {
			d.out.appendLine(`ctxls.query: ${e instanceof Error ? e.message : String(e)}`);
			qp.items = [];
		} finally {
			if (mine === generation) {
				qp.busy = false;
			}
		}
	};
	const search = debounce((text: string) => void run(text), 200);
	qp.onDidChangeValue((text) => search(text));
	const chosen = await new Promise<HitItem | undefined>((resolve) => {
		qp.onDidAccept(() => resolve(qp.selectedItems[0]));
		qp.onDidHide(() => resolve(undefined));
		qp.show();
	});
	search.cancel();
	qp.dispose();
	if (chosen === undefined) {
		return;
	}
	const file = path.isAbsolute(chosen.hit.path) ? chosen.hit.path : path.join(chosen.root, chosen.hit.path);
	const line = Math.max(0, chosen.hit.line - 1);
	const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
	await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0) });
}

interface IndexSummary {
	root: string;
	files?: number;
	parsed?: number;
	entities?: number;
	seconds?: number;
}

async function reindex(d: Deps): Promise<void> {
	const root = await pickFolder();
	if (root === undefined) {
		return;
	}
	const summaries = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: `ctxls: reindexing ${path.basename(root)}` },
		() => d.server.executeCommand<IndexSummary[]>(ServerCommand.reindex, [root]),
	);
	for (const s of summaries) {
		const line =
			`Reindexed ${s.root}: ${s.files ?? 0} files (${s.parsed ?? 0} parsed), ` +
			`${s.entities ?? 0} entities in ${(s.seconds ?? 0).toFixed(1)} s`;
		d.out.appendLine(line);
		void vscode.window.showInformationMessage(line);
	}
}

async function installHooks(d: Deps): Promise<void> {
	const root = await pickFolder();
	if (root === undefined) {
		return;
	}
	const bin = binary(d);
	const args = initArgs(root, bin);
	const r = await runCli(bin.path, args, { cwd: root });
	d.out.appendLine(`$ ctxls ${args.join(" ")}\n${r.stdout}${r.stderr}`);
	if (r.code !== 0) {
		throw new Error(cliError("ctxls init", r));
	}
	void vscode.window.showInformationMessage(`ctxls: Claude Code hooks installed in ${root}/${initTarget(args)}`);
}

async function doctor(d: Deps): Promise<void> {
	const root = await pickFolder();
	if (root === undefined) {
		return;
	}
	const bin = binaryPath(d);
	const r = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: "ctxls: running doctor" },
		() => runCli(bin, ["doctor", "--root", root], { cwd: root, timeoutMs: 120_000 }),
	);
	d.out.appendLine(`$ ctxls doctor --root ${root}\n${r.stdout}${r.stderr}`);
	d.out.show(true);
	const verdict = r.code === 0 ? "all checks passed" : "some checks failed";
	void vscode.window.showInformationMessage(`ctxls doctor: ${verdict} (details in the ctxls output)`);
}

async function addMemory(d: Deps): Promise<void> {
	const editor = vscode.window.activeTextEditor;
	if (editor === undefined || editor.selection.isEmpty) {
		throw new Error("select the code the memory is about first");
	}
	const doc = editor.document;
	const root = folderFor((vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), doc.uri.fsPath);
	if (root === undefined) {
		throw new Error("the selection is not in a workspace folder");
	}
	const kind = await vscode.window.showQuickPick(
		memoryTypes.map((t) => ({ label: t.label, detail: t.detail, type: t.type })),
		{ placeHolder: "What kind of memory?" },
	);
	if (kind === undefined) {
		return;
	}
	const title = await vscode.window.showInputBox({
		prompt: `Title of the ${kind.type}`,
		validateInput: (v) => (v.trim().length === 0 || v.trim().length > 200 ? "1 to 200 characters" : undefined),
	});
	if (title === undefined) {
		return;
	}
	const sel = {
		root,
		file: doc.uri.fsPath,
		startLine: editor.selection.start.line + 1,
		endLine: editor.selection.end.line + 1,
		languageId: doc.languageId,
		text: doc.getText(editor.selection),
	};
	const tagText = await vscode.window.showInputBox({
		prompt: "Tags (comma or space separated)",
		value: suggestedTags(sel).join(", "),
		validateInput: (v) => (parseTags(v).length === 0 ? "at least one tag" : undefined),
	});
	if (tagText === undefined) {
		return;
	}
	const bin = binaryPath(d);
	const args = memoryArgs(sel, kind.type, title.trim(), parseTags(tagText));
	const r = await runCli(bin, args, { cwd: root, stdin: memoryBody(sel, "") });
	d.out.appendLine(`$ ctxls ${args.join(" ")}\n${r.stdout}${r.stderr}`);
	if (r.code !== 0) {
		throw new Error(cliError("ctxls memory write", r));
	}
	void vscode.window.showInformationMessage(`ctxls: ${kind.type} "${title.trim()}" saved`);
}
