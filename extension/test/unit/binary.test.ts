import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { type BinaryEnv, bundledPath, resolveBinary } from "../../binary";

function env(executables: string[], over: Partial<BinaryEnv> = {}): BinaryEnv {
	return {
		configured: "",
		pathVar: "/usr/local/bin:/usr/bin",
		platform: "linux",
		arch: "x64",
		extensionDir: "/ext",
		isExecutable: (f) => executables.includes(f),
		...over,
	};
}

test("the setting wins over PATH and the bundled binary", () => {
	const r = resolveBinary(env(["/opt/ctxls", "/usr/bin/ctxls"], { configured: "/opt/ctxls" }));
	assert.deepEqual(r, { path: "/opt/ctxls", source: "setting" });
});

test("a configured binary that is not executable is an error, not a fall-through", () => {
	const r = resolveBinary(env(["/usr/bin/ctxls"], { configured: "/nope/ctxls" }));
	assert.ok("error" in r && r.error.includes("/nope/ctxls"));
});

test("PATH is searched in order", () => {
	const r = resolveBinary(env(["/usr/local/bin/ctxls", "/usr/bin/ctxls"]));
	assert.deepEqual(r, { path: "/usr/local/bin/ctxls", source: "PATH" });
});

test("the bundled binary for the platform is the last resort", () => {
	const bundled = bundledPath("/ext", "linux", "x64");
	assert.equal(bundled, path.join("/ext", "dist", "bin", "linux-x64", "ctxls"));
	assert.deepEqual(resolveBinary(env([bundled])), { path: bundled, source: "bundled" });
});

test("nothing found: the error says where it looked", () => {
	const r = resolveBinary(env([], { platform: "darwin", arch: "arm64" }));
	assert.ok("error" in r && r.error.includes("PATH") && r.error.includes("darwin-arm64"), JSON.stringify(r));
});

test("Windows: ctxls.exe and ; separated PATH", () => {
	const want = path.join("C:\\bin", "ctxls.exe");
	const r = resolveBinary(env([want], { platform: "win32", pathVar: "C:\\tools;C:\\bin" }));
	assert.deepEqual(r, { path: want, source: "PATH" });
});
