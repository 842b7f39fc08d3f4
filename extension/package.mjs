// Packages the extension as a platform-specific .vsix with the binaries built
// by `make build` inside it (dist/bin/<platform>-<arch>/ctxls, ctxls-hook), so the
// extension works where ctxls is not on PATH. Usage: node extension/package.mjs
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const target = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "ctxls.exe" : "ctxls";
execFileSync(process.execPath, ["extension/build.mjs"], { stdio: "inherit" });
const dir = join("dist", "bin", target);
mkdirSync(dir, { recursive: true });
// The binaries: ctxls, and the small hook client that `ctxls init` installs
// when it sits beside ctxls (docs/decisions/0083).
for (const name of [exe, process.platform === "win32" ? "ctxls-hook.exe" : "ctxls-hook"]) {
	if (!existsSync(join("bin", name))) {
		console.error(`package: ${join("bin", name)} is missing; run make build first`);
		process.exit(1);
	}
	copyFileSync(join("bin", name), join(dir, name));
	chmodSync(join(dir, name), 0o755);
}

const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const out = `ctxls-${target}-${version}.vsix`;
const vsce = join("node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
execFileSync(vsce, ["package", "--no-dependencies", "--skip-license", "--target", target, "--out", out], {
	stdio: "inherit",
});
console.log(out);
