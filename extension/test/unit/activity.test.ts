import assert from "node:assert/strict";
import { mock, test } from "node:test";
import * as vscode from "vscode";
import { ActivityForwarder, settleMs, viewPosition } from "../../activity";
import type { Activity, Triggers } from "../../protocol";
import { Range, Selection, stub, TextDocument, TextEditor } from "../vscode-stub";

const allOn: Triggers = { fileOpen: true, fileEdit: true, selection: true, symbolMention: true, implicitQueries: true };

function setup(triggers: Triggers = allOn): { sent: Activity[]; fwd: ActivityForwarder } {
	const sent: Activity[] = [];
	const fwd = new ActivityForwarder((a) => sent.push(a), () => triggers);
	return { sent, fwd };
}

const doc = new TextDocument(vscode.Uri.file("/w/main.go"), "package main\n\nfunc Login() {}\nfunc Logout() {}\n");

test("viewPosition: the cursor when in view, else the middle of the first range", () => {
	assert.deepEqual(viewPosition([{ start: 10, end: 40 }], { line: 12, character: 3 }), { line: 12, character: 3 });
	assert.deepEqual(viewPosition([{ start: 10, end: 40 }], { line: 100, character: 3 }), { line: 25, character: 0 });
	assert.equal(viewPosition([], { line: 0, character: 0 }), undefined);
});

test("switching editors sends file_open with the cursor; other schemes and a disabled trigger send nothing", () => {
	const { sent, fwd } = setup();
	stub.activeEditor.fire(new TextEditor(doc, new Selection(2, 5, 2, 5)));
	stub.activeEditor.fire(new TextEditor(new TextDocument(vscode.Uri.parse("untitled:x"), "")));
	stub.activeEditor.fire(undefined);
	fwd.dispose();
	assert.equal(sent.length, 1);
	assert.equal(sent.at(0)?.type, "file_open");
	assert.equal(sent.at(0)?.filePath, "/w/main.go");
	assert.deepEqual(sent.at(0)?.position, { line: 2, character: 5 });

	const off = setup({ ...allOn, fileOpen: false });
	stub.activeEditor.fire(new TextEditor(doc));
	off.fwd.dispose();
	assert.equal(off.sent.length, 0);
});

test("selections are debounced; only the settled, non-empty one is sent with its text", () => {
	mock.timers.enable({ apis: ["setTimeout"] });
	const { sent, fwd } = setup();
	try {
		const ed = new TextEditor(doc);
		stub.selectionChange.fire({ textEditor: ed, selections: [new Selection(2, 0, 2, 3)] });
		mock.timers.tick(100);
		stub.selectionChange.fire({ textEditor: ed, selections: [new Selection(2, 5, 2, 10)] });
		mock.timers.tick(settleMs.selection - 1);
		assert.equal(sent.length, 0);
		mock.timers.tick(1);
		assert.equal(sent.length, 1);
		assert.equal(sent.at(0)?.type, "selection");
		assert.equal(sent.at(0)?.text, "Login");
		assert.deepEqual(sent.at(0)?.position, { line: 2, character: 10 });

		stub.selectionChange.fire({ textEditor: ed, selections: [new Selection(3, 1, 3, 1)] });
		mock.timers.tick(settleMs.selection);
		assert.equal(sent.length, 1, "an empty selection (a cursor move) is not sent");
	} finally {
		fwd.dispose();
		mock.timers.reset();
	}
});

test("scrolling is sent once it settles, and not again for the same view", () => {
	mock.timers.enable({ apis: ["setTimeout"] });
	const { sent, fwd } = setup();
	try {
		const ed = new TextEditor(doc, new Selection(0, 0, 0, 0));
		const scroll = (start: number, end: number): void =>
			stub.visibleChange.fire({ textEditor: ed, visibleRanges: [new Range(start, 0, end, 0)] });
		scroll(10, 50);
		scroll(20, 60);
		mock.timers.tick(settleMs.visible);
		assert.equal(sent.length, 1);
		assert.equal(sent.at(0)?.type, "visible_range");
		assert.deepEqual(sent.at(0)?.position, { line: 40, character: 0 });
		assert.equal(sent.at(0)?.text, undefined);
		scroll(20, 60);
		mock.timers.tick(settleMs.visible);
		assert.equal(sent.length, 1);
	} finally {
		fwd.dispose();
		mock.timers.reset();
	}
});

test("disposing stops a pending send", () => {
	mock.timers.enable({ apis: ["setTimeout"] });
	const { sent, fwd } = setup();
	try {
		stub.selectionChange.fire({ textEditor: new TextEditor(doc), selections: [new Selection(2, 0, 2, 4)] });
		fwd.dispose();
		mock.timers.tick(settleMs.selection * 2);
		assert.equal(sent.length, 0);
	} finally {
		mock.timers.reset();
	}
});
