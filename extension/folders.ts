// Which workspace folder a command is about.

import * as path from "node:path";

/**
 * folderFor returns the folder (an absolute path) that holds file: the
 * longest matching root, as the server assigns files to folders.
 */
export function folderFor(roots: readonly string[], file: string | undefined): string | undefined {
	if (file === undefined) {
		return undefined;
	}
	let best: string | undefined;
	for (const root of roots) {
		const rel = path.relative(root, file);
		const inside = rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
		if (inside && (best === undefined || root.length > best.length)) {
			best = root;
		}
	}
	return best;
}

/** autoContextFile is the auto-context markdown the server writes for a folder. */
export function autoContextFile(root: string): string {
	return path.join(root, ".ctxls", "auto-context.md");
}

/**
 * isCtxlsOutput says whether a file is one ctxls writes itself (anything under
 * a .ctxls directory): the auto-context open in a preview must not be fed back
 * to the server as a document to index.
 */
export function isCtxlsOutput(file: string): boolean {
	return file.split(/[\\/]/).includes(".ctxls");
}
