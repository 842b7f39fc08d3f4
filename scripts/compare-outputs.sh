#!/usr/bin/env bash
# Compare what two ctxls binaries print for the same inputs, for performance
# work that must not change results: `ctxls query --json`, `ctxls query
# --json --explain` and `ctxls context` for every query of scripts/queries.txt
# (plus scripts/unrelated-prompts.txt), and a sequence of hook calls
# (session-start, then per query user-prompt-submit, post-tool-use Read,
# pre-tool-use Edit) replayed on the same index restored from a snapshot
# before each binary's run, so that both see the same session state.
#
#   scripts/compare-outputs.sh OLD_BIN NEW_BIN TREE
#
# TREE must hold an index (.ctxls/index.db); it is snapshotted first and
# restored at the end. HOME is pointed at a copy of the shared memory-plugin
# fixture (agents, commands, output styles, skill) so that discovery runs.
# Exit status 1 when any output differs.
set -euo pipefail
OLD=${1:?old binary}
NEW=${2:?new binary}
TREE=$(cd "${3:?tree with an index}" && pwd)
QUERIES=${QUERIES:-$(pwd)/scripts/queries.txt}
UNRELATED=${UNRELATED:-$(pwd)/scripts/unrelated-prompts.txt}
FIXTURE=${FIXTURE:-$(pwd)/../shared/fixtures/claude-memory-plugin}
OUT=$(mktemp -d /tmp/ctxls-compare.XXXXXX)
SNAP="$OUT/snapshot"
cp -a "$TREE/.ctxls" "$SNAP"

HOME_DIR="$OUT/home"
mkdir -p "$HOME_DIR/.claude"
if [ -d "$FIXTURE" ]; then
	cp -r "$FIXTURE/agents" "$FIXTURE/commands" "$HOME_DIR/.claude/"
	cp -r "$FIXTURE/styles" "$HOME_DIR/.claude/output-styles"
	cp -r "$FIXTURE/skills" "$HOME_DIR/.claude/skills"
fi

json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
mapfile -t prompts < <(cat "$QUERIES" "$UNRELATED" | grep -v '^$')
mapfile -t files < <(cd "$TREE" && find net/http strings bufio encoding/json -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort | head -60)

run() { # bin dir
	local bin=$1 dir=$2 n=0
	mkdir -p "$dir"
	rm -rf "$TREE/.ctxls" && cp -a "$SNAP" "$TREE/.ctxls"
	for q in "${prompts[@]}"; do
		n=$((n + 1))
		HOME=$HOME_DIR "$bin" query --root "$TREE" --json --limit 10 "$q" >"$dir/query-$n.json" 2>&1 || true
		HOME=$HOME_DIR "$bin" query --root "$TREE" --json --explain --limit 10 "$q" >"$dir/explain-$n.json" 2>&1 || true
		HOME=$HOME_DIR "$bin" context --root "$TREE" "$q" >"$dir/context-$n.md" 2>&1 || true
	done
	local s="compare-$(date +%s%N)"
	printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}' "$s" "$TREE" |
		HOME=$HOME_DIR "$bin" hook session-start >"$dir/hook-start.json" 2>&1 || true
	n=0
	for q in "${prompts[@]}"; do
		n=$((n + 1))
		local f="${files[$((n % ${#files[@]}))]}"
		printf '{"session_id":"%s","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":%s}' "$s" "$TREE" "$(json_str "$q")" |
			HOME=$HOME_DIR "$bin" hook user-prompt-submit >"$dir/hook-ups-$n.json" 2>&1 || true
		printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"%s/%s"},"tool_response":{}}' "$s" "$TREE" "$TREE" "$f" |
			HOME=$HOME_DIR "$bin" hook post-tool-use >"$dir/hook-post-$n.json" 2>&1 || true
		printf '{"session_id":"%s","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"%s/%s"}}' "$s" "$TREE" "$TREE" "$f" |
			HOME=$HOME_DIR "$bin" hook pre-tool-use >"$dir/hook-pre-$n.json" 2>&1 || true
	done
}

# The session id differs between the runs (each run restores the snapshot,
# so reusing it would be fine too); hook outputs never contain it.
run "$OLD" "$OUT/old"
run "$NEW" "$OUT/new"
rm -rf "$TREE/.ctxls" && cp -a "$SNAP" "$TREE/.ctxls" && rm -rf "$SNAP"

# Scores are compared to 9 significant digits: the graph's float sums follow
# map order, so the same binary differs in the last digits from run to run
# (and, rarely, two near-tied entities swap: run OLD against itself for the
# noise floor).
python3 - "$OUT" <<'PY'
import json, os, re, sys
out = sys.argv[1]
def norm(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    def walk(v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(f"{v:.9g}")
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v
    return json.dumps(walk(doc), sort_keys=True, indent=1)
names = sorted(os.listdir(os.path.join(out, "old")))
diff = [n for n in names if norm(os.path.join(out, "old", n)) != norm(os.path.join(out, "new", n))]
empty = sum(1 for n in names if os.path.getsize(os.path.join(out, "old", n)) == 0)
print(f"{len(names)} outputs ({len(names) - empty} non-empty), {len(diff)} differ{': ' + ' '.join(diff) if diff else ''}")
print(f"outputs in {out}/old and {out}/new")
sys.exit(1 if diff else 0)
PY
