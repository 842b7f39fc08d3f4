#!/usr/bin/env bash
# Context while indexing (issue 23, item 3): do prompt hooks still get their
# context while `ctxls index` re-indexes the workspace in a loop?
#
# A copy of a mid-size tree (default GOROOT/src/net, 390 Go files) is
# indexed; then, for each phase, ROUNDS rounds of CALLS concurrent
# `ctxls hook user-prompt-submit` calls go through the built binary, each
# round in a session of its own, with a prompt that names the tree's code.
# A round "gets context" when one of its calls prints a non-empty
# additionalContext (the collector injects an entry once per session, so
# one call of a round carries it). Phases:
#
#   quiet  no indexer runs (the prompt must get context here)
#   tree   every Go file changed, then `ctxls index`, in a loop (a checkout)
#   file   one file changed, then `ctxls index`, in a loop (an editor save)
#
# Then POST (default 20) post-tool-use calls, one after the other, each
# after an Edit of a file of its own (the hook re-indexes it, waiting a
# little for the index lock an index run holds), with their median and p95.
# After each phase it counts the new log lines with "database is locked"
# and "deadline" in .ctxls/ctxls.log, and gives the calls' median and p95.
# HOOK_MODE=in-process answers each call in its own process
# (CTXLS_HOOK_DAEMON=0) instead of through the workspace's daemon.
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src/net}
ROUNDS=${ROUNDS:-15}
CALLS=${CALLS:-50}
PHASES=${PHASES:-quiet tree file}
HOOK_MODE=${HOOK_MODE:-daemon}
POST=${POST:-20}
PROMPT=${PROMPT:-"how does net/http's Server.Serve accept connections and start goroutines"}
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }

WORK=$(mktemp -d)
TREE="$WORK/tree"
INDEXER=
cleanup() {
	[ -n "$INDEXER" ] && kill "$INDEXER" 2>/dev/null && wait "$INDEXER" 2>/dev/null
	# Stop the workspace's daemon: removing .ctxls makes it exit.
	if [ -n "${KEEP:-}" ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
mkdir -p "$TREE"
cp -a "$SRC" "$TREE/$(basename "$SRC")"
if [ "$HOOK_MODE" = in-process ]; then
	export CTXLS_HOOK_DAEMON=0
else
	export CTXLS_HOOK_DAEMON=1
fi
LOG="$TREE/.ctxls/ctxls.log"
echo "tree: $SRC ($(find "$TREE" -name '*.go' | wc -l) Go files), $ROUNDS rounds of $CALLS concurrent calls, hooks: $HOOK_MODE"
t0=$EPOCHREALTIME
"$BIN" index --root "$TREE" >/dev/null
echo "cold index: $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"

json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
PJSON=$(json_str "$PROMPT")
input() { printf '{"session_id":"%s","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":%s}' "$1" "$TREE" "$PJSON"; }

# call SESSION OUT: one hook call; OUT gets its answer, OUT.ms its wall time.
call() {
	local t0=${EPOCHREALTIME/./} t1
	input "$1" | "$BIN" hook user-prompt-submit >"$2" 2>/dev/null || true
	t1=${EPOCHREALTIME/./}
	echo $(( (t1 - t0) / 1000 )) >"$2.ms"
}

# indexer KIND: change files and re-index until $WORK/stop exists.
indexer() {
	local kind=$1 n=0
	mapfile -t gofiles < <(cd "$TREE" && find . -name '*.go' | sort)
	while [ ! -e "$WORK/stop" ]; do
		n=$((n + 1))
		if [ "$kind" = tree ]; then
			for f in "${gofiles[@]}"; do echo "// bench $n" >>"$TREE/$f"; done
		else
			echo "// bench $n" >>"$TREE/net/http/server.go"
		fi
		"$BIN" index --root "$TREE" >/dev/null 2>>"$WORK/indexer.err" || echo "index run $n failed" >>"$WORK/indexer.err"
		echo "$n" >"$WORK/indexer.runs"
	done
}

# The daemon is started by untimed calls before the first phase.
for i in 1 2 3; do input "warm-$i" | "$BIN" hook user-prompt-submit >/dev/null; sleep 0.3; done

for phase in $PHASES; do
	rm -f "$WORK/stop" "$WORK/indexer.runs" "$WORK/indexer.err"
	before=$(wc -l <"$LOG" 2>/dev/null || echo 0)
	if [ "$phase" != quiet ]; then
		indexer "$phase" &
		INDEXER=$!
		sleep 1 # the first run is under way
	fi
	got=0
	out="$WORK/out-$phase"
	mkdir -p "$out"
	for r in $(seq 1 "$ROUNDS"); do
		session="bench-$phase-$r-$$"
		pids=()
		for c in $(seq 1 "$CALLS"); do
			call "$session" "$out/$r-$c" &
			pids+=($!)
		done
		wait "${pids[@]}"
		if grep -l '"additionalContext":"[^"]' "$out/$r"-* >/dev/null 2>&1; then got=$((got + 1)); fi
		sleep 0.5
	done
	mapfile -t edits < <(cd "$TREE" && find net/mail net/textproto net/url net/rpc -name '*.go' | sort | head -"$POST")
	for f in "${edits[@]}"; do
		echo "// edited in $phase" >>"$TREE/$f"
		t1=${EPOCHREALTIME/./}
		printf '{"session_id":"post-%s-%s","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"%s/%s"},"tool_response":{}}' \
			"$phase" "$$" "$TREE" "$TREE" "$f" | "$BIN" hook post-tool-use >/dev/null 2>&1 || true
		t2=${EPOCHREALTIME/./}
		echo $(( (t2 - t1) / 1000 ))
	done >"$WORK/post-$phase.ms"
	runs=0
	if [ -n "$INDEXER" ]; then
		touch "$WORK/stop"
		wait "$INDEXER" || true
		INDEXER=
		runs=$(cat "$WORK/indexer.runs" 2>/dev/null || echo 0)
		[ -s "$WORK/indexer.err" ] && { echo "indexer errors:"; head -5 "$WORK/indexer.err"; }
	fi
	locked=$(tail -n +"$((before + 1))" "$LOG" | grep -c 'database is locked' || true)
	deadline=$(tail -n +"$((before + 1))" "$LOG" | grep -c 'deadline' || true)
	lat=$(cat "$out"/*.ms | sort -n | awk '{a[NR]=$1} END { i = int(0.95*NR + 0.999); printf "median %d ms, p95 %d ms, max %d ms", a[int((NR+1)/2)], a[i], a[NR] }')
	deferred=$(tail -n +"$((before + 1))" "$LOG" | grep -c 're-index of .* deferred' || true)
	post=$(sort -n "$WORK/post-$phase.ms" | awk '{a[NR]=$1} END { if (NR == 0) exit; i = int(0.95*NR + 0.999); printf "median %d ms, p95 %d ms", a[int((NR+1)/2)], a[i] }')
	printf '%-5s rounds with context: %2d of %d; index runs during it: %s; log: %d "database is locked", %d "deadline"; calls: %s\n' \
		"$phase" "$got" "$ROUNDS" "$runs" "$locked" "$deadline" "$lat"
	if [ "$POST" -gt 0 ]; then printf '      post-tool-use after an Edit, %d calls: %s; %d re-indexes deferred\n' "${#edits[@]}" "$post" "$deferred"; fi
done
