#!/usr/bin/env bash
# Hook latency on an index of a large real tree (default GOROOT/src): whole
# process `ctxls hook user-prompt-submit` over the fixed prompts in
# scripts/queries.txt and `ctxls hook post-tool-use` (Read of a file, which
# re-checks it in the index) over as many files; median and p95.
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
QUERIES=${QUERIES:-$(pwd)/scripts/queries.txt}
WORK=${BENCH_WORK:-/tmp/ctxls-bench-goroot}
if [ ! -d "$WORK/src" ]; then
	mkdir -p "$WORK"
	cp -a "$SRC" "$WORK/src"
fi
TREE="$WORK/src"
"$BIN" index --root "$TREE" >/dev/null

ns() { date +%s%N; }
json_str() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
ups=(); post=(); n=0
mapfile -t files < <(cd "$TREE" && find net/http strings bufio encoding/json -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort | head -60)
while IFS= read -r q; do
	[ -z "$q" ] && continue
	n=$((n + 1))
	in="{\"session_id\":\"bench-$n\",\"cwd\":\"$TREE\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":$(json_str "$q")}"
	t0=$(ns); printf '%s' "$in" | "$BIN" hook user-prompt-submit >/dev/null; t1=$(ns)
	ups+=("$(( (t1 - t0) / 1000 ))")
	f="${files[$(( n % ${#files[@]} ))]}"
	in="{\"session_id\":\"bench-$n\",\"cwd\":\"$TREE\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"$TREE/$f\"},\"tool_response\":{}}"
	t0=$(ns); printf '%s' "$in" | "$BIN" hook post-tool-use >/dev/null; t1=$(ns)
	post+=("$(( (t1 - t0) / 1000 ))")
done < "$QUERIES"

stat() { sort -n | awk '{a[NR]=$1} END { m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; i = int(0.95*NR + 0.999); if (i < 1) i = 1; printf "%.1f %.1f", m/1000, a[i]/1000 }'; }
read -r u_med u_p95 <<<"$(printf '%s\n' "${ups[@]}" | stat)"
read -r p_med p_p95 <<<"$(printf '%s\n' "${post[@]}" | stat)"
echo "bench-hooks on $SRC, ${#ups[@]} calls each, whole process"
printf 'user-prompt-submit  median %6.1f ms  p95 %6.1f ms  (target p95 <= 40 ms)\n' "$u_med" "$u_p95"
printf 'post-tool-use       median %6.1f ms  p95 %6.1f ms  (target p95 <= 25 ms)\n' "$p_med" "$p_p95"
