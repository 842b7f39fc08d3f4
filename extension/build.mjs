// Bundles the extension (dist/extension.js) or a test suite (out/test/<suite>/)
// with esbuild. Usage: node extension/build.mjs [unit|protocol|e2e]
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const suite = process.argv[2];
const common = { bundle: true, platform: "node", format: "cjs", target: "node20", sourcemap: true, logLevel: "warning" };

if (suite === undefined) {
	await esbuild.build({
		...common,
		entryPoints: ["extension/extension.ts"],
		outfile: "dist/extension.js",
		external: ["vscode"],
		minify: true,
	});
} else {
	const dir = join("extension", "test", suite);
	const entryPoints = readdirSync(dir).filter((f) => f.endsWith(".test.ts")).map((f) => join(dir, f));
	await esbuild.build({
		...common,
		entryPoints,
		outdir: join("out", "test", suite),
		// Unit tests run the extension's modules under plain Node against a stub of the vscode API.
		alias: suite === "unit" ? { vscode: "./extension/test/vscode-stub.ts" } : {},
		external: ["playwright-core"],
	});
}
