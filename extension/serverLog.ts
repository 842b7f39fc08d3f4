// The server's log (zap JSON lines on stderr) as readable lines at their level.

/** A log line for the output channel. */
export interface LogLine {
	level: "trace" | "debug" | "info" | "warn" | "error";
	text: string;
}

const levels: Record<string, LogLine["level"]> = {
	debug: "debug",
	info: "info",
	warn: "warn",
	error: "error",
	dpanic: "error",
	panic: "error",
	fatal: "error",
};

/**
 * parseLogLine turns one zap JSON line into its level and "msg key=value ..."
 * (without the timestamp: the output channel adds its own). Anything else the
 * server writes to stderr (a Go panic, a usage error) is shown as an error.
 */
export function parseLogLine(line: string): LogLine {
	let rec: unknown;
	try {
		rec = JSON.parse(line);
	} catch {
		return { level: "error", text: line };
	}
	if (typeof rec !== "object" || rec === null || Array.isArray(rec)) {
		return { level: "error", text: line };
	}
	const fields = rec as Record<string, unknown>;
	const str = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));
	const level = levels[typeof fields.level === "string" ? fields.level : ""] ?? "info";
	const parts = [typeof fields.msg === "string" ? fields.msg : ""];
	for (const [k, v] of Object.entries(fields)) {
		if (k === "level" || k === "ts" || k === "msg") {
			continue;
		}
		parts.push(`${k}=${str(v)}`);
	}
	return { level, text: parts.join(" ") };
}
