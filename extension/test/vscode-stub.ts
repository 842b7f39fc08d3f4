// A stub of the parts of the vscode API the extension's own modules use, for
// unit tests under plain Node. Tests drive it through `stub`.

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
	private listeners: Listener<T>[] = [];
	readonly event = (l: Listener<T>): { dispose(): void } => {
		this.listeners.push(l);
		return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
	};
	fire(e: T): void {
		for (const l of this.listeners) {
			l(e);
		}
	}
	dispose(): void {
		this.listeners = [];
	}
}

export class Position {
	constructor(
		readonly line: number,
		readonly character: number,
	) {}
}

export class Range {
	readonly start: Position;
	readonly end: Position;
	constructor(sl: number, sc: number, el: number, ec: number) {
		this.start = new Position(sl, sc);
		this.end = new Position(el, ec);
	}
}

export class Selection extends Range {
	constructor(
		anchorLine: number,
		anchorChar: number,
		activeLine: number,
		activeChar: number,
	) {
		super(anchorLine, anchorChar, activeLine, activeChar);
		this.active = new Position(activeLine, activeChar);
	}
	readonly active: Position;
	get isEmpty(): boolean {
		return this.start.line === this.end.line && this.start.character === this.end.character;
	}
}

export class Uri {
	private constructor(
		readonly scheme: string,
		readonly fsPath: string,
	) {}
	static file(p: string): Uri {
		return new Uri("file", p);
	}
	static parse(s: string): Uri {
		const m = /^([a-z-]+):(.*)$/.exec(s);
		return new Uri(m?.[1] ?? "file", m?.[2] ?? s);
	}
	toString(): string {
		return `${this.scheme}://${this.fsPath}`;
	}
}

export class ThemeColor {
	constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
	Left = 1,
	Right = 2,
}

/** A status bar item that remembers what it was told. */
export class StatusBarItem {
	text = "";
	tooltip: string | undefined;
	command: string | undefined;
	name: string | undefined;
	backgroundColor: ThemeColor | undefined;
	visible = false;
	constructor(readonly id: string) {}
	show(): void {
		this.visible = true;
	}
	hide(): void {
		this.visible = false;
	}
	dispose(): void {
		this.visible = false;
	}
}

/** A text document over a string. */
export class TextDocument {
	constructor(
		readonly uri: Uri,
		readonly text: string,
		readonly languageId = "go",
	) {}
	getText(r?: Range): string {
		if (r === undefined) {
			return this.text;
		}
		const lines = this.text.split("\n");
		const out: string[] = [];
		for (let l = r.start.line; l <= r.end.line; l++) {
			const line = lines[l] ?? "";
			const from = l === r.start.line ? r.start.character : 0;
			const to = l === r.end.line ? r.end.character : line.length;
			out.push(line.slice(from, to));
		}
		return out.join("\n");
	}
}

/** An editor on a document with a selection. */
export class TextEditor {
	constructor(
		readonly document: TextDocument,
		public selection: Selection = new Selection(0, 0, 0, 0),
	) {}
}

const activeEditor = new EventEmitter<TextEditor | undefined>();
const selectionChange = new EventEmitter<{ textEditor: TextEditor; selections: Selection[] }>();
const visibleChange = new EventEmitter<{ textEditor: TextEditor; visibleRanges: Range[] }>();
const configChange = new EventEmitter<{ affectsConfiguration(s: string): boolean }>();
const trustGranted = new EventEmitter<void>();

/** The stub's controls: fire events, set state, see what was created. */
export const stub = {
	activeEditor,
	selectionChange,
	visibleChange,
	configChange,
	trustGranted,
	statusItems: [] as StatusBarItem[],
	settings: new Map<string, unknown>(),
	messages: [] as string[],
};

export const window = {
	activeTextEditor: undefined as TextEditor | undefined,
	onDidChangeActiveTextEditor: activeEditor.event,
	onDidChangeTextEditorSelection: selectionChange.event,
	onDidChangeTextEditorVisibleRanges: visibleChange.event,
	createStatusBarItem(id: string): StatusBarItem {
		const item = new StatusBarItem(id);
		stub.statusItems.push(item);
		return item;
	},
	showErrorMessage(m: string): Promise<undefined> {
		stub.messages.push(m);
		return Promise.resolve(undefined);
	},
	showWarningMessage(m: string): Promise<undefined> {
		stub.messages.push(m);
		return Promise.resolve(undefined);
	},
	showInformationMessage(m: string): Promise<undefined> {
		stub.messages.push(m);
		return Promise.resolve(undefined);
	},
};

export const workspace = {
	isTrusted: true,
	workspaceFolders: undefined as { uri: Uri }[] | undefined,
	onDidChangeConfiguration: configChange.event,
	onDidGrantWorkspaceTrust: trustGranted.event,
	getConfiguration(section: string) {
		return {
			get<T>(key: string, fallback: T): T {
				const v = stub.settings.get(`${section}.${key}`);
				return v === undefined ? fallback : (v as T);
			},
		};
	},
};
