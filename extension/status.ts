// What the status bar says: indexing progress, then the index's entities and
// the size of the current auto-context.

import type { Status } from "./protocol";

/** The extension's own states, besides what the server reports. */
export type ClientState =
	| { kind: "starting" }
	| { kind: "running" }
	| { kind: "restarting"; inSeconds: number }
	| { kind: "failed"; message: string }
	| { kind: "untrusted" }
	| { kind: "disabled" };

/** What the status bar item shows. */
export interface StatusView {
	text: string;
	tooltip: string;
	visible: boolean;
	error: boolean;
}

const count = (n: number): string => n.toLocaleString("en-US");

/** tokens formats a token count the way people read budgets: 812, 1.2k, 12k. */
export function tokens(n: number): string {
	if (n < 1000) {
		return `${n}`;
	}
	if (n < 10_000) {
		return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
	}
	return `${Math.round(n / 1000)}k`;
}

/** renderStatus turns the client's state and the server's last status for a folder into the status bar. */
export function renderStatus(client: ClientState, server: Status | undefined): StatusView {
	switch (client.kind) {
		case "disabled":
			return { text: "", tooltip: "", visible: false, error: false };
		case "untrusted":
			return {
				text: "$(shield) ctxls",
				tooltip: "ctxls starts once you trust this workspace",
				visible: true,
				error: false,
			};
		case "failed":
			return { text: "$(error) ctxls", tooltip: client.message, visible: true, error: true };
		case "restarting":
			return {
				text: "$(debug-disconnect) ctxls",
				tooltip: `The ctxls server stopped; restarting in ${client.inSeconds} s`,
				visible: true,
				error: true,
			};
		case "starting":
			return { text: "$(sync~spin) ctxls", tooltip: "Starting the ctxls server", visible: true, error: false };
		case "running":
			break;
	}
	if (server === undefined) {
		return { text: "$(sync~spin) ctxls", tooltip: "Waiting for the ctxls server", visible: true, error: false };
	}
	if (server.state === "error") {
		return {
			text: "$(error) ctxls",
			tooltip: `ctxls: ${server.message ?? "error"} (${server.root})`,
			visible: true,
			error: true,
		};
	}
	if (server.state === "indexing") {
		const done = server.filesDone ?? 0;
		const total = server.filesTotal ?? 0;
		const progress = total > 0 ? ` ${count(done)}/${count(total)}` : "";
		return {
			text: `$(sync~spin) ctxls: indexing${progress}`,
			tooltip: `Indexing ${server.root}`,
			visible: true,
			error: false,
		};
	}
	const entities = server.entities ?? 0;
	const ctxTokens = server.contextTokens ?? 0;
	const lines = [
		`${count(entities)} entities indexed in ${server.root}`,
		ctxTokens > 0
			? `Auto-context: ${count(ctxTokens)} tokens (${count(server.contextBytes ?? 0)} bytes)`
			: "Auto-context: empty (nothing relevant yet)",
		"Click to show the auto-context",
	];
	return {
		text: `$(book) ${count(entities)} · ${tokens(ctxTokens)} tok`,
		tooltip: lines.join("\n"),
		visible: true,
		error: false,
	};
}
