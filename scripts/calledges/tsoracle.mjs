// tsoracle answers, for each position read from stdin (JSON lines
// {path, line, col}: a path relative to the root, a 1-based line, a 0-based
// column), where the TypeScript compiler's LanguageService finds the
// definition of the name there: one JSON line per question, {path, line,
// name} for a function, method or class in the workspace, {path, line,
// name, other: kind} for another declaration there, {external: file} for
// one outside it, or null. Used by oracle.py and index/tsoracle_test.go.
//
//	node tsoracle.mjs ROOT NODE_MODULES < questions.jsonl
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [root, nodeModules] = process.argv.slice(2);
const ts = createRequire(path.join(nodeModules, "noop.js"))("typescript");

const exts = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (exts.includes(path.extname(e.name))) files.push(p);
  }
})(root);

const options = {
  allowJs: true, checkJs: false, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, noEmit: true,
  allowImportingTsExtensions: true, skipLibCheck: true, types: [],
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
const callable = new Set(["function", "method", "class", "constructor", "local function"]);

const input = fs.readFileSync(0, "utf8").split("\n").filter((l) => l.trim());
const out = [];
for (const l of input) {
  const q = JSON.parse(l);
  const file = path.join(root, q.path);
  const sf = ls.getProgram().getSourceFile(file);
  let answer = null;
  if (sf) {
    let pos;
    try {
      pos = sf.getPositionOfLineAndCharacter(q.line - 1, q.col);
    } catch {
      pos = undefined;
    }
    const defs = pos === undefined ? undefined : ls.getDefinitionAtPosition(file, pos);
    if (defs && defs.length > 0) {
      const d = defs[0];
      const rel = path.relative(root, d.fileName);
      if (rel.startsWith("..") || rel.includes("node_modules")) {
        answer = { external: d.fileName };
      } else {
        const dsf = ls.getProgram().getSourceFile(d.fileName);
        const line = dsf.getLineAndCharacterOfPosition(d.textSpan.start).line + 1;
        answer = { path: rel, line, name: d.name };
        if (!callable.has(d.kind)) answer.other = d.kind;
      }
    }
  }
  out.push(JSON.stringify(answer));
}
process.stdout.write(out.join("\n") + "\n");
