// Editor activity the language server protocol does not carry: which editor
// has focus, selections, and what is scrolled into view.

import * as vscode from "vscode";
import { debounce } from "./debounce";
import type { Activity, Position, Triggers } from "./protocol";

/** How long selections and scrolling must settle before they are sent, in ms. */
export const settleMs = { selection: 300, visible: 500 };

/** The longest selected text sent (the server keeps 2,000 characters). */
const maxText = 2000;

/** A line range of an editor, zero-based and inclusive. */
export interface LineRange {
	start: number;
	end: number;
}

/**
 * viewPosition is where a view of code points: the cursor when it is in view,
 * else the middle of the first visible range.
 */
export function viewPosition(visible: readonly LineRange[], cursor: Position): Position | undefined {
	const first = visible[0];
	if (first === undefined) {
		return undefined;
	}
	if (visible.some((r) => cursor.line >= r.start && cursor.line <= r.end)) {
		return cursor;
	}
	return { line: Math.floor((first.start + first.end) / 2), character: 0 };
}

/**
 * ActivityForwarder sends ctxls/activity for the active editor (file_open),
 * non-empty selections (selection) and scrolling (visible_range), debounced.
 * Open, edit and close reach the server as standard didOpen/didChange/didClose.
 */
export class ActivityForwarder implements vscode.Disposable {
	private readonly disposables: vscode.Disposable[] = [];
	private lastView = "";

	constructor(
		private readonly send: (a: Activity) => void,
		private readonly triggers: () => Triggers,
	) {
		const selection = debounce((e: vscode.TextEditorSelectionChangeEvent) => this.selection(e), settleMs.selection);
		const visible = debounce((e: vscode.TextEditorVisibleRangesChangeEvent) => this.visible(e), settleMs.visible);
		this.disposables.push(
			vscode.window.onDidChangeActiveTextEditor((e) => this.activeEditor(e)),
			vscode.window.onDidChangeTextEditorSelection(selection),
			vscode.window.onDidChangeTextEditorVisibleRanges(visible),
			{ dispose: () => selection.cancel() },
			{ dispose: () => visible.cancel() },
		);
	}

	/** activeEditor reports the editor that has focus now (also called once at start). */
	activeEditor(editor: vscode.TextEditor | undefined): void {
		if (editor === undefined || !isFile(editor.document) || !this.triggers().fileOpen) {
			return;
		}
		const p = editor.selection.active;
		this.send({
			type: "file_open",
			filePath: editor.document.uri.fsPath,
			position: { line: p.line, character: p.character },
			timestamp: new Date().toISOString(),
		});
	}

	dispose(): void {
		for (const d of this.disposables) {
			d.dispose();
		}
	}

	private selection(e: vscode.TextEditorSelectionChangeEvent): void {
		const sel = e.selections[0];
		if (sel === undefined || sel.isEmpty || !isFile(e.textEditor.document) || !this.triggers().selection) {
			return;
		}
		this.send({
			type: "selection",
			filePath: e.textEditor.document.uri.fsPath,
			position: { line: sel.active.line, character: sel.active.character },
			text: e.textEditor.document.getText(sel).slice(0, maxText),
			timestamp: new Date().toISOString(),
		});
	}

	private visible(e: vscode.TextEditorVisibleRangesChangeEvent): void {
		if (!isFile(e.textEditor.document) || !this.triggers().selection) {
			return;
		}
		const ranges = e.visibleRanges.map((r) => ({ start: r.start.line, end: r.end.line }));
		const cursor = e.textEditor.selection.active;
		const pos = viewPosition(ranges, { line: cursor.line, character: cursor.character });
		const key = `${e.textEditor.document.uri.toString()}:${pos?.line}`;
		if (pos === undefined || key === this.lastView) {
			return;
		}
		this.lastView = key;
		this.send({
			type: "visible_range",
			filePath: e.textEditor.document.uri.fsPath,
			position: pos,
			timestamp: new Date().toISOString(),
		});
	}
}

function isFile(doc: vscode.TextDocument): boolean {
	return doc.uri.scheme === "file";
}
