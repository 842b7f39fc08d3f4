// Finding the ctxls binary: the setting, else PATH, else the one packaged
// in the .vsix for this platform.

import * as path from "node:path";

/** Where a binary was found. */
export type BinarySource = "setting" | "PATH" | "bundled";

/** A resolved binary. */
export interface Binary {
	path: string;
	source: BinarySource;
}

/** What resolveBinary looks at; injected so the search is testable. */
export interface BinaryEnv {
	configured: string;
	pathVar: string;
	platform: NodeJS.Platform;
	arch: string;
	extensionDir: string;
	isExecutable: (file: string) => boolean;
}

/** bundledPath is where `make ext-package` puts the platform's binary inside the extension. */
export function bundledPath(extensionDir: string, platform: NodeJS.Platform, arch: string): string {
	const exe = platform === "win32" ? "ctxls.exe" : "ctxls";
	return path.join(extensionDir, "dist", "bin", `${platform}-${arch}`, exe);
}

/**
 * resolveBinary returns the ctxls binary to run, or an error message that
 * says where it looked. A configured path that is not executable is an error
 * (not a silent fall-through): the person asked for that binary.
 */
export function resolveBinary(env: BinaryEnv): Binary | { error: string } {
	if (env.configured !== "") {
		if (env.isExecutable(env.configured)) {
			return { path: env.configured, source: "setting" };
		}
		return { error: `ctxls.binaryPath is set to ${env.configured}, which is not an executable file` };
	}
	const exe = env.platform === "win32" ? "ctxls.exe" : "ctxls";
	const sep = env.platform === "win32" ? ";" : ":";
	for (const dir of env.pathVar.split(sep)) {
		if (dir === "") {
			continue;
		}
		const candidate = path.join(dir, exe);
		if (env.isExecutable(candidate)) {
			return { path: candidate, source: "PATH" };
		}
	}
	const bundled = bundledPath(env.extensionDir, env.platform, env.arch);
	if (env.isExecutable(bundled)) {
		return { path: bundled, source: "bundled" };
	}
	return {
		error:
			`ctxls not found: ctxls.binaryPath is empty, there is no ${exe} on PATH, ` +
			`and this extension has no binary for ${env.platform}-${env.arch}`,
	};
}
