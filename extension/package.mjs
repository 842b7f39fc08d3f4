// Packages the extension as a platform-specific .vsix with the ctxls binary
// built by `make build` inside it (dist/bin/<platform>-<arch>/ctxls), so the
// extension works where ctxls is not on PATH. Usage: node extension/package.mjs
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const target = `${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "ctxls.exe" : "ctxls";
const built = join("bin", exe);
if (!existsSync(built)) {
	console.error(`package: ${built} is missing; run make build first`);
	process.exit(1);
}
execFileSync(process.execPath, ["extension/build.mjs"], { stdio: "inherit" });
const dir = join("dist", "bin", target);
mkdirSync(dir, { recursive: true });
copyFileSync(built, join(dir, exe));
chmodSync(join(dir, exe), 0o755);

const { version } = JSON.parse(readFileSync("package.json", "utf8"));
const out = `ctxls-${target}-${version}.vsix`;
const vsce = join("node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
execFileSync(vsce, ["package", "--no-dependencies", "--skip-license", "--target", target, "--out", out], {
	stdio: "inherit",
});
console.log(out);
