#!/usr/bin/env bash
# Hook latency on an index of a large real tree (default GOROOT/src): whole
# process `ctxls hook user-prompt-submit` over the fixed prompts in
# scripts/queries.txt and `ctxls hook post-tool-use` (Read of a file, which
# re-checks it in the index) over as many files; median and p95, through
# the thin client bin/ctxls and the workspace's hook daemon (what ctxls init
# installs), bin/ctxls-core and the daemon, and ctxls-core alone (MODES).
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
CORE=${CORE:-$(dirname "$BIN")/ctxls-core}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
QUERIES=${QUERIES:-$(pwd)/scripts/queries.txt}
WORK=${BENCH_WORK:-/tmp/ctxls-bench-goroot}
if [ ! -d "$WORK/src" ]; then
	mkdir -p "$WORK"
	cp -a "$SRC" "$WORK/src"
fi
TREE="$WORK/src"

# Every context source has work to do (SOURCES=0 leaves them out): rules of
# each format, AGENTS.md files, a keyword mode, and a home with the shared
# fixture's agents, commands, output styles and skill.
if [ "${SOURCES:-1}" = 1 ]; then
	put() { mkdir -p "$(dirname "$TREE/$1")"; printf '%b' "$2" >"$TREE/$1"; }
	put .cursor/rules/go.mdc '---\ndescription: Go style\nglobs: "**/*.go"\n---\nWrap errors with context: fmt.Errorf("doing x: %w", err).\n'
	put .cursor/rules/always.mdc '---\nalwaysApply: true\n---\nThis is the Go standard library: no third-party imports.\n'
	put .github/copilot-instructions.md 'Prefer table-driven tests.\n'
	put .github/instructions/http.instructions.md '---\napplyTo: "net/http/**"\n---\nKeep HTTP/1 and HTTP/2 behaviour in step.\n'
	put .claude/rules/json.md '---\npaths: ["encoding/json/**"]\n---\nNever change the encoding of existing types.\n'
	put AGENTS.md 'Run ./all.bash before sending a change.\n'
	put net/http/AGENTS.md 'h2_bundle.go is generated: do not edit it by hand.\n'
	put .ctxls/config.yaml 'sources:\n  modes:\n    - name: ultrawork\n      keywords: [ultrawork, ulw]\n      instruction: Work until the task is done.\n'
	FIXTURE=${FIXTURE:-$(pwd)/../shared/fixtures/claude-memory-plugin}
	if [ -d "$FIXTURE" ]; then
		export HOME="$WORK/home"
		mkdir -p "$HOME/.claude"
		for d in agents:agents commands:commands styles:output-styles skills:skills; do
			rm -rf "$HOME/.claude/${d#*:}"
			cp -r "$FIXTURE/${d%%:*}" "$HOME/.claude/${d#*:}"
		done
	fi
fi
"$BIN" index --root "$TREE" >/dev/null

# Timestamps in microseconds from bash itself: $(date +%s%N) forked a
# process whose start (3-4 ms on the 2-core VM) was counted in every sample.
# The caller reads $now right after `stamp`.
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }
stamp() { now=${EPOCHREALTIME/./}; }
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
# Inputs are built once, outside the timed calls.
INPUTS=$(mktemp -d)
trap 'rm -rf "$INPUTS"' EXIT
mapfile -t files < <(cd "$TREE" && find net/http strings bufio encoding/json -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort | head -60)
n=0
while IFS= read -r q; do
	[ -z "$q" ] && continue
	n=$((n + 1))
	printf '%s' "{\"session_id\":\"SESSION-$n\",\"cwd\":\"$TREE\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json_str "$q")}" >"$INPUTS/ups-$n"
	f="${files[$(( n % ${#files[@]} ))]}"
	printf '%s' "{\"session_id\":\"SESSION-$n\",\"cwd\":\"$TREE\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"$TREE/$f\"},\"tool_response\":{}}" >"$INPUTS/post-$n"
done < "$QUERIES"

stat() { sort -n | awk '{a[NR]=$1} END { m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; i = int(0.95*NR + 0.999); if (i < 1) i = 1; printf "%.1f %.1f", m/1000, a[i]/1000 }'; }

# run MODE: every prompt as a hook call, each in a new session. "client" is
# what ctxls init installs: bin/ctxls asking the workspace's warm daemon
# (started by untimed first calls); "daemon" is `ctxls-core hook` asking it;
# "in-process" is `ctxls-core hook` with CTXLS_HOOK_DAEMON=0.
run() {
	local mode=$1 session="bench-$1-$(date +%s%N)" ups=() post=() i t0 t1 exe=$CORE
	if [ "$mode" = in-process ]; then
		export CTXLS_HOOK_DAEMON=0
	else
		export CTXLS_HOOK_DAEMON=1
		[ "$mode" = client ] && exe=$BIN
		for _ in 1 2 3; do sed "s/SESSION-/warm-$session-/" "$INPUTS/ups-1" | "$exe" hook user-prompt-submit >/dev/null; sleep 0.3; done
	fi
	for i in $(seq 1 "$n"); do
		sed "s/SESSION-/$session-/" "$INPUTS/ups-$i" >"$INPUTS/cur"
		stamp; t0=$now; "$exe" hook user-prompt-submit <"$INPUTS/cur" >/dev/null; stamp; t1=$now
		ups+=("$(( t1 - t0 ))")
		sed "s/SESSION-/$session-/" "$INPUTS/post-$i" >"$INPUTS/cur"
		stamp; t0=$now; "$exe" hook post-tool-use <"$INPUTS/cur" >/dev/null; stamp; t1=$now
		post+=("$(( t1 - t0 ))")
	done
	read -r u_med u_p95 <<<"$(printf '%s\n' "${ups[@]}" | stat)"
	read -r p_med p_p95 <<<"$(printf '%s\n' "${post[@]}" | stat)"
	printf '%-10s user-prompt-submit  median %6.1f ms  p95 %6.1f ms  (target p95 <= 40 ms)\n' "$mode" "$u_med" "$u_p95"
	printf '%-10s post-tool-use       median %6.1f ms  p95 %6.1f ms  (target p95 <= 25 ms)\n' "$mode" "$p_med" "$p_p95"
}

echo "bench-hooks on $SRC, $n calls each, whole process, context sources ${SOURCES:-1} (home $HOME)"
for mode in ${MODES:-client daemon in-process}; do
	run "$mode"
done
