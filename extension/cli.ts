// Running ctxls subcommands (init, doctor, memory write) for the commands the
// language server does not answer.

import { spawn } from "node:child_process";

/** What a finished ctxls command printed and how it exited. */
export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** Options of runCli. */
export interface CliOptions {
	cwd: string;
	stdin?: string;
	timeoutMs?: number;
	/** env replaces the environment (default: the extension host's). */
	env?: NodeJS.ProcessEnv;
}

/**
 * runCli runs `binary args...` in cwd, writes stdin to it, and resolves with
 * its output and exit code; it rejects only when the process cannot start or
 * outlives timeoutMs (it is killed then).
 */
export function runCli(binary: string, args: readonly string[], opts: CliOptions): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(binary, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		const timeout = opts.timeoutMs ?? 60_000;
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`${binary} ${args.join(" ")} did not finish within ${timeout / 1000} s`));
		}, timeout);
		child.stdout.on("data", (b: Buffer) => out.push(b));
		child.stderr.on("data", (b: Buffer) => err.push(b));
		child.on("error", (e) => {
			clearTimeout(timer);
			reject(new Error(`run ${binary}: ${e.message}`));
		});
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			resolve({
				code: code ?? (signal !== null ? 128 : 1),
				stdout: Buffer.concat(out).toString("utf8"),
				stderr: Buffer.concat(err).toString("utf8"),
			});
		});
		// A command that does not read stdin may exit before we finish writing.
		child.stdin.on("error", () => undefined);
		child.stdin.end(opts.stdin ?? "");
	});
}

/** cliError is the message shown for a failed command: its own words, else its exit code. */
export function cliError(what: string, r: CliResult): string {
	const said = (r.stderr.trim() || r.stdout.trim()).split("\n").slice(-3).join(" ");
	return said !== "" ? `${what} failed: ${said}` : `${what} failed (exit ${r.code})`;
}

/**
 * initArgs are the arguments of `ctxls init` for the Install Claude Code
 * Hooks command. A ctxls found on PATH goes into the project's shared
 * .claude/settings.json as `ctxls`, which every teammate's PATH resolves;
 * any other binary (the setting, the one packaged in the .vsix) is a path of
 * this machine, so it goes into .claude/settings.local.json, which is not
 * committed (docs/decisions/0098).
 */
export function initArgs(root: string, bin: { path: string; source: string }): string[] {
	const args = ["init", "--root", root, "--no-index"];
	if (bin.source !== "PATH") {
		args.push("--local", "--command", bin.path);
	}
	return args;
}

/** initTarget is the settings file initArgs installs into, relative to the root. */
export function initTarget(args: string[]): string {
	return args.includes("--local") ? ".claude/settings.local.json" : ".claude/settings.json";
}
