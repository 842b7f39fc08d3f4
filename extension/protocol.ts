// The ctxls messages the standard protocol lacks, as docs/protocol.md defines
// them. Wire vocabulary only: no behaviour lives here.

/** Method names of ctxls's custom notifications and requests. */
export const Method = {
	activity: "ctxls/activity",
	message: "ctxls/message",
	context: "ctxls/context",
	status: "ctxls/status",
} as const;

/** Commands the server answers through workspace/executeCommand. */
export const ServerCommand = {
	showContext: "ctxls.showContext",
	query: "ctxls.query",
	reindex: "ctxls.reindex",
} as const;

/**
 * The kinds of editor activity the server turns into triggers. visible_range
 * is code scrolled into view: weaker than a selection (docs/protocol.md).
 */
export type ActivityType = "file_open" | "file_edit" | "file_close" | "symbol_hover" | "selection" | "visible_range";

/** A zero-based LSP position. */
export interface Position {
	line: number;
	character: number;
}

/** Params of the ctxls/activity notification. */
export interface Activity {
	type: ActivityType;
	filePath: string;
	changedSymbols?: string[];
	position?: Position;
	text?: string;
	timestamp?: string;
}

/** Params of the ctxls/status notification. */
export interface Status {
	root: string;
	state: "indexing" | "ready" | "error";
	filesDone?: number;
	filesTotal?: number;
	entities?: number;
	contextTokens?: number;
	contextBytes?: number;
	contextFile?: string;
	message?: string;
}

/** Params of the ctxls/context request. */
export interface ContextParams {
	filePath?: string;
	refresh?: boolean;
}

/** The result of ctxls/context (also .ctxls/auto-context.json); only the fields the extension reads. */
export interface ContextResult {
	root: string;
	generated: string;
	activeFile: string;
	markdown: string;
	tokens: number;
	bytes: number;
	entities: number;
	abstained: boolean;
	reason?: string;
}

/** One ranked entity in a ctxls.query result. */
export interface QueryHit {
	path: string;
	line: number;
	kind: string;
	name: string;
	qualifiedName?: string;
	signature?: string;
	score: number;
}

/** The result of the ctxls.query command. */
export interface QueryResult {
	root: string;
	files: { path: string; score: number }[];
	results: QueryHit[];
}

/** Which kinds of activity and message analysis update the auto-context. */
export interface Triggers {
	fileOpen: boolean;
	fileEdit: boolean;
	selection: boolean;
	symbolMention: boolean;
	implicitQueries: boolean;
}

/**
 * The server's configuration as the extension sends it: as initializationOptions,
 * and as `{settings: {ctxls: ServerSettings}}` in workspace/didChangeConfiguration.
 */
export interface ServerSettings {
	enabled: boolean;
	maxTokens: number;
	minRelevance: number;
	triggers: Triggers;
	logLevel: LogLevel;
}

/** The server's log levels (`ctxls serve --log-level`). */
export type LogLevel = "debug" | "info" | "warn" | "error";
