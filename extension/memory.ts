// Add Memory from selection: the body and argv of `ctxls memory write`.

import * as path from "node:path";

/** The memory types the command offers. */
export const memoryTypes = [
	{ type: "decision", label: "Decision", detail: "A choice made and why" },
	{ type: "gotcha", label: "Gotcha", detail: "A trap to warn about next time" },
	{ type: "learning", label: "Learning", detail: "Something found out about this code" },
] as const;

/** One of the memory types the command offers. */
export type MemoryType = (typeof memoryTypes)[number]["type"];

/** What the person selected, and where. */
export interface Selection {
	root: string;
	file: string;
	startLine: number; // 1-based
	endLine: number;
	languageId: string;
	text: string;
}

/** memoryBody is the markdown written to the memory: where the code is, then the code. */
export function memoryBody(sel: Selection, note: string): string {
	const rel = path.relative(sel.root, sel.file).split(path.sep).join("/");
	const where = sel.startLine === sel.endLine ? `${rel}:${sel.startLine}` : `${rel}:${sel.startLine}-${sel.endLine}`;
	const fence = sel.text.includes("```") ? "~~~~" : "```";
	const parts = [];
	if (note.trim() !== "") {
		parts.push(note.trim(), "");
	}
	parts.push(`From \`${where}\`:`, "", `${fence}${sel.languageId}`, sel.text.replace(/\n$/, ""), fence, "");
	return parts.join("\n");
}

/** tag normalises a word to the store's tag form: lowercase, hyphenated. */
function tag(word: string): string {
	return word.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

/** suggestedTags are the tags offered for a selection: its language and its file's name. */
export function suggestedTags(sel: Selection): string[] {
	const stem = path.basename(sel.file).replace(/\.[^.]*$/, "");
	return [...new Set([tag(sel.languageId), tag(stem)].filter((t) => t !== ""))];
}

/** parseTags splits what the person typed ("Go, auth  token_refresh") into tags (go, auth, token-refresh). */
export function parseTags(input: string): string[] {
	return [...new Set(input.split(/[\s,]+/).map(tag).filter((t) => t !== ""))];
}

/**
 * memoryArgs is the argv of `ctxls memory write` (issue 7's CLI); the body goes
 * to stdin, and the memory is attached to the selection's file.
 */
export function memoryArgs(sel: Selection, type: MemoryType, title: string, tags: readonly string[]): string[] {
	const rel = path.relative(sel.root, sel.file).split(path.sep).join("/");
	return ["memory", "write", "--root", sel.root, "--type", type, "--title", title, "--tags", tags.join(","),
		"--files", rel, "--stdin"];
}
