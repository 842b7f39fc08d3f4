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

/** suggestedTags are the tags offered for a selection: its language and its file's name. */
export function suggestedTags(sel: Selection): string[] {
	const stem = path.basename(sel.file).replace(/\.[^.]*$/, "").toLowerCase();
	const tags = [sel.languageId.toLowerCase(), stem].filter((t) => /^[a-z0-9][a-z0-9_-]*$/.test(t));
	return [...new Set(tags)];
}

/** parseTags splits what the person typed ("go, auth  tokens") into tags. */
export function parseTags(input: string): string[] {
	return [...new Set(input.split(/[\s,]+/).map((t) => t.trim()).filter((t) => t !== ""))];
}

/** memoryArgs is the argv of `ctxls memory write` (the body goes to stdin). */
export function memoryArgs(root: string, type: MemoryType, title: string, tags: readonly string[]): string[] {
	return ["memory", "write", "--root", root, "--type", type, "--title", title, "--tags", tags.join(",")];
}
