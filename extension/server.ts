// The ctxls language server process: start, configure, restart with backoff.

import * as fs from "node:fs";
import * as readline from "node:readline";
import type { Readable } from "node:stream";
import * as vscode from "vscode";
import {
	CloseAction,
	DidChangeConfigurationNotification,
	ErrorAction,
	ExecuteCommandRequest,
	LanguageClient,
	type LanguageClientOptions,
	type ServerOptions,
	TransportKind,
} from "vscode-languageclient/node";
import { RestartPolicy } from "./backoff";
import { isCtxlsOutput } from "./folders";
import { type Binary, resolveBinary } from "./binary";
import { Method, type ServerSettings, type Status } from "./protocol";
import { parseLogLine } from "./serverLog";
import { needsRestart, serverArgs, serverSettings } from "./settings";
import type { ClientState } from "./status";

/** The languages ctxls indexes, as VS Code names them. */
const languages = [
	"go", "typescript", "typescriptreact", "javascript", "javascriptreact", "python", "rust", "java",
	"kotlin", "swift", "c", "cpp", "csharp", "ruby", "php", "markdown",
];

/**
 * QuietClient logs the client's errors to the output channel without a
 * notification each: Server tells the person once when the server dies.
 */
class QuietClient extends LanguageClient {
	override error(message: string, data?: unknown): void {
		super.error(message, data, false);
	}
}

/** pipeLog shows each line of the server's stderr in the output channel at its own level. */
function pipeLog(input: Readable, out: vscode.LogOutputChannel): void {
	readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (line) => {
		const { level, text } = parseLogLine(line);
		out[level](text);
	});
}

function isExecutable(file: string): boolean {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

/** readSettings reads the ctxls.* settings. */
export function readSettings(): ServerSettings {
	const cfg = vscode.workspace.getConfiguration("ctxls");
	return serverSettings((key, fallback) => cfg.get(key, fallback));
}

/**
 * Server owns the language client. It starts `ctxls serve` when enabled and
 * the workspace is trusted, forwards configuration changes, and restarts a
 * server that died, waiting longer after each quick death and telling the
 * person once.
 */
export class Server implements vscode.Disposable {
	private client: LanguageClient | undefined;
	private settings: ServerSettings = readSettings();
	private readonly policy = new RestartPolicy();
	private restartTimer: ReturnType<typeof setTimeout> | undefined;
	private stopping = false;
	private readonly statusEmitter = new vscode.EventEmitter<Status>();
	private readonly stateEmitter = new vscode.EventEmitter<ClientState>();
	private readonly disposables: vscode.Disposable[] = [];

	/** onStatus fires with every ctxls/status notification. */
	readonly onStatus = this.statusEmitter.event;
	/** onState fires when the client's own state changes. */
	readonly onState = this.stateEmitter.event;

	constructor(
		private readonly extensionDir: string,
		private readonly out: vscode.LogOutputChannel,
	) {
		this.disposables.push(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration("ctxls")) {
					void this.configurationChanged(e.affectsConfiguration("ctxls.binaryPath"));
				}
			}),
			vscode.workspace.onDidGrantWorkspaceTrust(() => void this.start()),
		);
	}

	/** binary is the ctxls executable the server and the CLI commands run. */
	binary(): Binary | { error: string } {
		const configured = vscode.workspace.isTrusted
			? vscode.workspace.getConfiguration("ctxls").get<string>("binaryPath", "")
			: "";
		return resolveBinary({
			configured,
			pathVar: process.env.PATH ?? "",
			platform: process.platform,
			arch: process.arch,
			extensionDir: this.extensionDir,
			isExecutable,
		});
	}

	/** running is the client when the server is up. */
	running(): LanguageClient | undefined {
		return this.client?.isRunning() ? this.client : undefined;
	}

	/** start starts the server unless it is disabled, untrusted, or already running. */
	async start(): Promise<void> {
		this.settings = readSettings();
		if (!this.settings.enabled) {
			this.stateEmitter.fire({ kind: "disabled" });
			return;
		}
		if (!vscode.workspace.isTrusted) {
			this.stateEmitter.fire({ kind: "untrusted" });
			return;
		}
		if (this.client !== undefined || this.restartTimer !== undefined) {
			return;
		}
		const bin = this.binary();
		if ("error" in bin) {
			this.out.appendLine(bin.error);
			this.stateEmitter.fire({ kind: "failed", message: bin.error });
			void vscode.window.showErrorMessage(bin.error);
			return;
		}
		this.out.appendLine(`Starting ${bin.path} (from ${bin.source})`);
		this.stateEmitter.fire({ kind: "starting" });
		const client = this.newClient(bin);
		this.client = client;
		this.stopping = false;
		this.policy.started(Date.now());
		try {
			await client.start();
		} catch (e) {
			this.out.appendLine(`ctxls serve did not start: ${e instanceof Error ? e.message : String(e)}`);
			this.died(client);
			return;
		}
		this.stateEmitter.fire({ kind: "running" });
	}

	/** stop stops the server, if it runs, and cancels a pending restart. */
	async stop(): Promise<void> {
		if (this.restartTimer !== undefined) {
			clearTimeout(this.restartTimer);
			this.restartTimer = undefined;
		}
		const client = this.client;
		this.client = undefined;
		if (client === undefined) {
			return;
		}
		this.stopping = true;
		try {
			if (client.isRunning()) {
				await client.stop(5000);
			}
		} catch (e) {
			this.out.appendLine(`stopping ctxls serve: ${e instanceof Error ? e.message : String(e)}`);
		} finally {
			await client.dispose().catch(() => undefined);
		}
	}

	/** restart stops and starts the server (a new binary or log level). */
	async restart(): Promise<void> {
		await this.stop();
		await this.start();
	}

	/** request sends a ctxls request; it rejects when the server is not running. */
	async request<R>(method: string, params: unknown): Promise<R> {
		return this.need().sendRequest<R>(method, params);
	}

	/** executeCommand runs one of the server's workspace/executeCommand commands. */
	async executeCommand<R>(command: string, args: unknown[]): Promise<R> {
		return this.need().sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as Promise<R>;
	}

	/** notify sends a ctxls notification if the server is running, and drops it otherwise. */
	notify(method: string, params: unknown): void {
		const client = this.running();
		if (client !== undefined) {
			void client.sendNotification(method, params).catch(() => undefined);
		}
	}

	/** current is the configuration the server was last sent. */
	current(): ServerSettings {
		return this.settings;
	}

	dispose(): void {
		void this.stop();
		for (const d of this.disposables) {
			d.dispose();
		}
		this.statusEmitter.dispose();
		this.stateEmitter.dispose();
	}

	private need(): LanguageClient {
		const client = this.running();
		if (client === undefined) {
			throw new Error("the ctxls server is not running (see the ctxls output)");
		}
		return client;
	}

	private newClient(bin: Binary): LanguageClient {
		const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
		const serverOptions: ServerOptions = {
			command: bin.path,
			args: serverArgs(this.settings),
			transport: TransportKind.stdio,
			options: folder !== undefined ? { cwd: folder } : {},
		};
		const clientOptions: LanguageClientOptions = {
			documentSelector: languages.map((language) => ({ scheme: "file", language })),
			outputChannel: this.out,
			initializationOptions: this.settings,
			stdioOptions: { stdout: pipeLog, stderr: pipeLog },
			// The auto-context open in its preview is a markdown document too: never
			// send the server its own output as something to index.
			middleware: {
				didOpen: (doc, next) => (isCtxlsOutput(doc.uri.fsPath) ? Promise.resolve() : next(doc)),
				didChange: (e, next) => (isCtxlsOutput(e.document.uri.fsPath) ? Promise.resolve() : next(e)),
				didSave: (doc, next) => (isCtxlsOutput(doc.uri.fsPath) ? Promise.resolve() : next(doc)),
				didClose: (doc, next) => (isCtxlsOutput(doc.uri.fsPath) ? Promise.resolve() : next(doc)),
			},
			// A failed start is a death like any other: Server restarts it with backoff.
			initializationFailedHandler: () => false,
			errorHandler: {
				error: () => ({ action: ErrorAction.Continue, handled: true }),
				closed: () => {
					if (!this.stopping) {
						this.died(client);
					}
					return { action: CloseAction.DoNotRestart, handled: true };
				},
			},
		};
		const client = new QuietClient("ctxls", "ctxls", serverOptions, clientOptions);
		client.onNotification(Method.status, (s: Status) => this.statusEmitter.fire(s));
		return client;
	}

	/** died schedules the restart of a server that exited without being asked to. */
	private died(client: LanguageClient): void {
		if (this.client !== client || this.restartTimer !== undefined) {
			return;
		}
		this.client = undefined;
		void client.dispose().catch(() => undefined);
		const delay = this.policy.died(Date.now());
		this.out.appendLine(`ctxls serve exited; restarting in ${delay / 1000} s`);
		this.stateEmitter.fire({ kind: "restarting", inSeconds: Math.round(delay / 1000) });
		if (this.policy.shouldTell()) {
			void vscode.window
				.showWarningMessage("The ctxls server stopped unexpectedly; it will be restarted.", "Show Log")
				.then((pick) => pick === "Show Log" && this.out.show());
		}
		this.restartTimer = setTimeout(() => {
			this.restartTimer = undefined;
			void this.start();
		}, delay);
	}

	private async configurationChanged(binaryChanged: boolean): Promise<void> {
		const before = this.settings;
		const after = readSettings();
		if (!after.enabled) {
			await this.stop();
			this.settings = after;
			this.stateEmitter.fire({ kind: "disabled" });
			return;
		}
		if (!before.enabled || binaryChanged || needsRestart(before, after) || this.client === undefined) {
			await this.restart();
			return;
		}
		this.settings = after;
		const client = this.running();
		if (client !== undefined) {
			await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { ctxls: after } });
		}
	}
}
