// The status bar item: one for the window, about the folder of the active editor.

import * as vscode from "vscode";
import { folderFor } from "./folders";
import type { Status } from "./protocol";
import { type ClientState, renderStatus } from "./status";

/** StatusBar shows the server's last ctxls/status for the active editor's folder. */
export class StatusBar implements vscode.Disposable {
	private readonly item = vscode.window.createStatusBarItem("ctxls.status", vscode.StatusBarAlignment.Left, 50);
	private readonly byRoot = new Map<string, Status>();
	private client: ClientState = { kind: "starting" };
	private readonly disposables: vscode.Disposable[] = [];

	constructor() {
		this.item.name = "ctxls";
		this.item.command = "ctxls.showAutoContext";
		this.disposables.push(vscode.window.onDidChangeActiveTextEditor(() => this.render()));
		this.render();
	}

	/** setState records the client's state (starting, running, restarting, ...). */
	setState(state: ClientState): void {
		this.client = state;
		if (state.kind !== "running") {
			this.byRoot.clear();
		}
		this.render();
	}

	/** update records a ctxls/status notification or the figures of a ctxls/context result. */
	update(s: Status): void {
		this.byRoot.set(s.root, s);
		this.render();
	}

	/** updateIfUnknown records figures only for a folder the server has not reported on yet. */
	updateIfUnknown(s: Status): void {
		if (!this.byRoot.has(s.root)) {
			this.update(s);
		}
	}

	dispose(): void {
		this.item.dispose();
		for (const d of this.disposables) {
			d.dispose();
		}
	}

	private render(): void {
		const roots = [...this.byRoot.keys()];
		const active = folderFor(roots, vscode.window.activeTextEditor?.document.uri.fsPath);
		const status = this.byRoot.get(active ?? roots[0] ?? "");
		const view = renderStatus(this.client, status);
		this.item.text = view.text;
		this.item.tooltip = view.tooltip;
		this.item.backgroundColor = view.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
		if (view.visible) {
			this.item.show();
		} else {
			this.item.hide();
		}
	}
}
