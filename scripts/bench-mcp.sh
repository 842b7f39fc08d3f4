#!/usr/bin/env bash
# context_query latency of `ctxls mcp` on an index of a large real tree
# (default GOROOT/src), over the fixed queries in scripts/queries.txt: the Go
# benchmark BenchmarkContextQuery (the binary over stdio, the server in
# process, and retrieval alone), next to the whole-process `ctxls context`
# for the same queries, the CLI peer an assistant would otherwise run.
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
QUERIES=${QUERIES:-$(pwd)/scripts/queries.txt}
WORK=${BENCH_WORK:-/tmp/ctxls-bench-goroot}
PASSES=${PASSES:-3}
if [ ! -d "$WORK/src" ]; then
	mkdir -p "$WORK"
	cp -a "$SRC" "$WORK/src"
fi
TREE="$WORK/src"
"$BIN" index --root "$TREE" >/dev/null

echo "bench-mcp on $SRC, $(grep -c . "$QUERIES") queries x $PASSES passes (after one warm-up pass)"
CTXLS_BIN="$BIN" CTXLS_BENCH_ROOT="$TREE" CTXLS_BENCH_QUERIES="$QUERIES" \
	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkContextQuery -benchtime "${PASSES}x" ./mcpserver/ |
	awk '/^BenchmarkContextQuery/ { for (i = 3; i < NF; i++) v[$(i+1)] = $i
		printf "%-36s median %6.1f ms  p95 %6.1f ms  CPU %5.1f ms/query (this process)\n", $1, v["median-ms"], v["p95-ms"], v["cpu-ms/query"] }'

ms() { date +%s%N; }
t=()
while IFS= read -r q; do
	[ -z "$q" ] && continue
	t0=$(ms); "$BIN" context --root "$TREE" "$q" >/dev/null; t1=$(ms)
	t+=("$(( (t1 - t0) / 1000 ))")
done < "$QUERIES"
stat() { sort -n | awk '{a[NR]=$1} END { m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; i = int(0.95*NR + 0.999); if (i < 1) i = 1; printf "%.1f %.1f", m/1000, a[i]/1000 }'; }
read -r c_med c_p95 <<<"$(printf '%s\n' "${t[@]}" | stat)"
printf '%-36s median %6.1f ms  p95 %6.1f ms  (peer: one process per query)\n' "ctxls context (whole process)" "$c_med" "$c_p95"
echo "target: context_query p95 <= 40 ms"
