// Reading the extension's settings into what the server is sent.

import type { LogLevel, ServerSettings, Triggers } from "./protocol";

/** Reads one setting, as vscode.WorkspaceConfiguration.get does. */
export type SettingReader = <T>(key: string, fallback: T) => T;

const logLevels: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** Defaults, as in the manifest and the server's config.Default. */
export const defaultSettings: ServerSettings = {
	enabled: true,
	maxTokens: 4000,
	minRelevance: 0.5,
	triggers: { fileOpen: true, fileEdit: true, selection: true, symbolMention: true, implicitQueries: true },
	logLevel: "info",
};

/**
 * serverSettings reads the ctxls.* settings into the server's configuration.
 * Values of the wrong type or out of range fall back to the defaults, so a
 * hand-edited settings.json never sends the server something it must reject.
 */
export function serverSettings(get: SettingReader): ServerSettings {
	const d = defaultSettings;
	const bool = (key: string, fallback: boolean): boolean => {
		const v = get<unknown>(key, fallback);
		return typeof v === "boolean" ? v : fallback;
	};
	const num = (key: string, fallback: number, min: number, max: number): number => {
		const v = get<unknown>(key, fallback);
		return typeof v === "number" && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
	};
	const level = get<unknown>("logLevel", d.logLevel);
	const triggers: Triggers = {
		fileOpen: bool("triggers.fileOpen", d.triggers.fileOpen),
		fileEdit: bool("triggers.fileEdit", d.triggers.fileEdit),
		selection: bool("triggers.selection", d.triggers.selection),
		symbolMention: bool("triggers.symbolMention", d.triggers.symbolMention),
		implicitQueries: bool("triggers.implicitQueries", d.triggers.implicitQueries),
	};
	return {
		enabled: bool("enabled", d.enabled),
		maxTokens: Math.round(num("maxTokens", d.maxTokens, 100, 1_000_000)),
		minRelevance: num("minRelevance", d.minRelevance, 0, 1),
		triggers,
		logLevel: logLevels.find((l) => l === level) ?? d.logLevel,
	};
}

/**
 * serverArgs is the argv of `ctxls serve` for the settings (vscode-languageclient
 * appends --stdio). The server logs to stderr, which the client shows in the
 * ctxls output channel.
 */
export function serverArgs(s: ServerSettings): string[] {
	return ["serve", "--log-level", s.logLevel];
}

/** needsRestart says whether a settings change only takes effect in a new server process. */
export function needsRestart(before: ServerSettings, after: ServerSettings): boolean {
	return before.logLevel !== after.logLevel;
}
