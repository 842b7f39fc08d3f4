// The ctxls extension: start the language server, forward what the protocol
// does not carry, and show the auto-context. Everything else comes from the server.

import * as vscode from "vscode";
import { ActivityForwarder } from "./activity";
import { register } from "./commands";
import { Method, type ContextResult } from "./protocol";
import { Server } from "./server";
import { StatusBar } from "./statusBar";

let server: Server | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
	const out = vscode.window.createOutputChannel("ctxls", { log: true });
	const status = new StatusBar();
	server = new Server(context.extensionPath, out);
	const srv = server;
	const activity = new ActivityForwarder(
		(a) => srv.notify(Method.activity, a),
		() => srv.current().triggers,
	);
	context.subscriptions.push(
		out,
		status,
		srv,
		activity,
		srv.onStatus((s) => status.update(s)),
		srv.onState((s) => {
			status.setState(s);
			if (s.kind === "running") {
				activity.activeEditor(vscode.window.activeTextEditor);
				void lateStatus(srv, status);
			}
		}),
		...register({ server: srv, out, status }),
	);
	await srv.start();
}

export async function deactivate(): Promise<void> {
	await server?.stop();
	server = undefined;
}

/** lateStatus fills the status bar from ctxls/context for a server that started before we listened. */
async function lateStatus(srv: Server, status: StatusBar): Promise<void> {
	try {
		const file = vscode.window.activeTextEditor?.document.uri.fsPath;
		const ctx = await srv.request<ContextResult>(Method.context, file !== undefined ? { filePath: file } : {});
		status.updateIfUnknown({
			root: ctx.root,
			state: "ready",
			entities: ctx.entities,
			contextTokens: ctx.tokens,
			contextBytes: ctx.bytes,
		});
	} catch {
		// The server reports ctxls/status on its own once it has indexed.
	}
}
