import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import { StatusBar } from "../../statusBar";
import { stub, TextDocument, TextEditor, window } from "../vscode-stub";

test("the status bar follows the active editor's folder and opens the auto-context on click", () => {
	const bar = new StatusBar();
	const item = stub.statusItems.at(-1);
	assert.ok(item !== undefined);
	assert.equal(item.command, "ctxls.showAutoContext");
	assert.equal(item.text, "$(sync~spin) ctxls");

	bar.setState({ kind: "running" });
	bar.update({ root: "/a", state: "indexing", filesDone: 5, filesTotal: 10 });
	assert.equal(item.text, "$(sync~spin) ctxls: indexing 5/10");
	bar.update({ root: "/a", state: "ready", entities: 100, contextTokens: 50, contextBytes: 200 });
	bar.update({ root: "/b", state: "ready", entities: 7, contextTokens: 0, contextBytes: 0 });
	assert.equal(item.text, "$(book) 100 · 50 tok", "no active editor: the first folder");

	window.activeTextEditor = new TextEditor(new TextDocument(vscode.Uri.file("/b/x.go"), ""));
	stub.activeEditor.fire(window.activeTextEditor);
	assert.equal(item.text, "$(book) 7 · 0 tok");

	bar.updateIfUnknown({ root: "/b", state: "ready", entities: 1, contextTokens: 0, contextBytes: 0 });
	assert.equal(item.text, "$(book) 7 · 0 tok", "a late ctxls/context answer does not override ctxls/status");

	bar.setState({ kind: "restarting", inSeconds: 2 });
	assert.equal(item.text, "$(debug-disconnect) ctxls");
	assert.ok(item.backgroundColor !== undefined);
	bar.setState({ kind: "disabled" });
	assert.equal(item.visible, false);
	bar.dispose();
	window.activeTextEditor = undefined;
});
