// Packages the extension as a platform-specific .vsix with the binaries built
// by `make build` inside it (dist/bin/<platform>-<arch>/ctxls, ctxls-core), so the
// extension works where ctxls is not on PATH. Usage: node extension/package.mjs
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const target = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "ctxls.exe" : "ctxls";
execFileSync(process.execPath, ["extension/build.mjs"], { stdio: "inherit" });
const dir = join("dist", "bin", target);
// Only this build's binaries: a program an earlier build shipped must not ride along.
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
// The binaries: ctxls, the thin client, and ctxls-core, the full program it
// runs (docs/decisions/0086).
for (const name of [exe, process.platform === "win32" ? "ctxls-core.exe" : "ctxls-core"]) {
	if (!existsSync(join("bin", name))) {
		console.error(`package: ${join("bin", name)} is missing; run make build first`);
		process.exit(1);
	}
	copyFileSync(join("bin", name), join(dir, name));
	chmodSync(join(dir, name), 0o755);
}

const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const out = `ctxls-${target}-${version}.vsix`;
// One .vsix per platform: `make dist` puts every ctxls-<platform>-*.vsix in
// the archive, so one left by an earlier version must not ride along.
for (const f of readdirSync(".")) {
	if (f.startsWith(`ctxls-${target}-`) && f.endsWith(".vsix") && f !== out) {
		rmSync(f);
	}
}
const vsce = join("node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
execFileSync(vsce, ["package", "--no-dependencies", "--skip-license", "--target", target, "--out", out], {
	stdio: "inherit",
});
console.log(out);
