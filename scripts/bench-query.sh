#!/usr/bin/env bash
# Query latency on an index of a large real tree (default GOROOT/src):
# whole-process `ctxls query` median and p95 over the fixed query list in
# scripts/queries.txt, through the workspace's daemon and on its own, next to
# `rg -l -i` for each query's longest word.
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
QUERIES=${QUERIES:-$(pwd)/scripts/queries.txt}
WORK=${BENCH_WORK:-/tmp/ctxls-bench-goroot}
command -v rg >/dev/null || { echo "bench-query: ripgrep is required (apt-get install ripgrep)" >&2; exit 1; }

if [ ! -d "$WORK/src" ]; then
	mkdir -p "$WORK"
	cp -a "$SRC" "$WORK/src"
fi
TREE="$WORK/src"
"$BIN" index --root "$TREE" >/dev/null

# Timestamps in microseconds from bash itself: $(date +%s%N) forked a
# process whose start (3-4 ms on the 2-core VM) was counted in every sample.
# The caller reads $now right after `stamp`.
[ -n "${EPOCHREALTIME:-}" ] || { echo "$0: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }
stamp() { now=${EPOCHREALTIME/./}; }
# Through the workspace's daemon (the default, warmed by two untimed
# queries), then each query in a process of its own (CTXLS_HOOK_DAEMON=0).
CTXLS_HOOK_DAEMON=1 "$BIN" query --root "$TREE" --json warm up >/dev/null; sleep 0.5
CTXLS_HOOK_DAEMON=1 "$BIN" query --root "$TREE" --json warm up >/dev/null
ctx=(); alone=(); rg_t=()
while IFS= read -r q; do
	[ -z "$q" ] && continue
	stamp; t0=$now; CTXLS_HOOK_DAEMON=1 "$BIN" query --root "$TREE" --json --limit 10 "$q" >/dev/null; stamp; t1=$now
	ctx+=("$(( t1 - t0 ))")
	stamp; t0=$now; CTXLS_HOOK_DAEMON=0 "$BIN" query --root "$TREE" --json --limit 10 "$q" >/dev/null; stamp; t1=$now
	alone+=("$(( t1 - t0 ))")
	word=$(printf '%s\n' $q | tr -cd 'A-Za-z0-9_\n' | awk '{ if (length($0) > length(w)) w = $0 } END { print w }')
	stamp; t0=$now; rg -l -i -- "$word" "$TREE" >/dev/null || true; stamp; t1=$now
	rg_t+=("$(( t1 - t0 ))")
done < "$QUERIES"

stat() { sort -n | awk '{a[NR]=$1} END { m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; i = int(0.95*NR + 0.999); if (i < 1) i = 1; printf "%.1f %.1f", m/1000, a[i]/1000 }'; }
read -r c_med c_p95 <<<"$(printf '%s\n' "${ctx[@]}" | stat)"
read -r a_med a_p95 <<<"$(printf '%s\n' "${alone[@]}" | stat)"
read -r r_med r_p95 <<<"$(printf '%s\n' "${rg_t[@]}" | stat)"
echo "bench-query on $SRC, ${#ctx[@]} queries, whole process"
printf 'ctxls query   median %6.1f ms  p95 %6.1f ms  (targets 20 / 40 ms; through the daemon)\n' "$c_med" "$c_p95"
printf '  in-process  median %6.1f ms  p95 %6.1f ms  (CTXLS_HOOK_DAEMON=0)\n' "$a_med" "$a_p95"
printf 'rg -l -i      median %6.1f ms  p95 %6.1f ms\n' "$r_med" "$r_p95"
printf 'ratio ctxls/rg (median) %.2f\n' "$(echo "$c_med / $r_med" | bc -l)"
