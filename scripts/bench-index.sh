#!/usr/bin/env bash
# Index benchmarks on a large real tree (default: $(go env GOROOT)/src),
# measured in the same run as universal-ctags on the same tree.
# Prints: cold index time vs ctags -R, re-index after an analyzer change
# (needs the sqlite3 CLI), no-op re-index, one-file re-index (whole
# process), index.db size vs source bytes, peak RSS.
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
RUNS=${RUNS:-3}
WORK=$(mktemp -d /tmp/ctxls-bench-index.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
command -v ctags >/dev/null || { echo "bench-index: universal-ctags is required (apt-get install universal-ctags)" >&2; exit 1; }

# Work on a copy so that the benchmark never writes into the source tree.
cp -a "$SRC" "$WORK/src"
TREE="$WORK/src"
src_bytes=$(find "$TREE" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
files=$(find "$TREE" -type f | wc -l)

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }

ctags_times=(); cold_times=(); rss=()
for i in $(seq "$RUNS"); do
	t0=$(now); ctags -R -f "$WORK/tags" "$TREE" 2>/dev/null; t1=$(now)
	ctags_times+=("$(echo "$t1 - $t0" | bc)")
	rm -rf "$TREE/.ctxls"
	t0=$(now)
	/usr/bin/time -f '%M' -o "$WORK/rss" "$BIN" index --root "$TREE" >/dev/null
	t1=$(now)
	cold_times+=("$(echo "$t1 - $t0" | bc)")
	rss+=("$(cat "$WORK/rss")")
done
ctags_med=$(printf '%s\n' "${ctags_times[@]}" | median)
cold_med=$(printf '%s\n' "${cold_times[@]}" | median)
rss_max=$(printf '%s\n' "${rss[@]}" | sort -g | tail -1)

noop=()
for i in $(seq 5); do
	t0=$(now); "$BIN" index --root "$TREE" >/dev/null; t1=$(now)
	noop+=("$(echo "$t1 - $t0" | bc)")
done
noop_med=$(printf '%s\n' "${noop[@]}" | median)

touch1=()
f="$TREE/net/http/server.go"
for i in $(seq 5); do
	printf '\n// bench edit %d\n' "$i" >> "$f"
	t0=$(now); "$BIN" index --root "$TREE" >/dev/null; t1=$(now)
	touch1+=("$(echo "$t1 - $t0" | bc)")
done
touch_med=$(printf '%s\n' "${touch1[@]}" | median)
db_bytes=$(stat -c %s "$TREE/.ctxls/index.db")
wal=$(stat -c %s "$TREE/.ctxls/index.db-wal" 2>/dev/null || echo 0)

# An upgrade that changes the analyzer: the stored version differs, so every
# file is analysed again (a rebuild beside the live tables, decision 0057).
# The sqlite3 CLI sets the version; without it the line is left out.
version_med=""
if command -v sqlite3 >/dev/null; then
	version=()
	for i in $(seq "$RUNS"); do
		sqlite3 "$TREE/.ctxls/index.db" "UPDATE meta SET value = '0' WHERE key = 'analyzer'"
		t0=$(now); "$BIN" index --root "$TREE" >/dev/null; t1=$(now)
		version+=("$(echo "$t1 - $t0" | bc)")
	done
	version_med=$(printf '%s\n' "${version[@]}" | median)
	version_bytes=$(stat -c %s "$TREE/.ctxls/index.db")
fi

echo "bench-index on $SRC ($files files, $((src_bytes / 1000000)) MB), $(nproc) cores, median of $RUNS"
printf 'ctags -R            %8.2f s\n' "$ctags_med"
printf 'ctxls index (cold)  %8.2f s   ratio to ctags %.2fx (target <= 3x)\n' "$cold_med" "$(echo "$cold_med / $ctags_med" | bc -l)"
if [ -n "$version_med" ]; then
	printf 'analyzer change     %8.2f s   ratio to cold %.2fx (target <= 1x); index.db after it %.1f MB\n' "$version_med" "$(echo "$version_med / $cold_med" | bc -l)" "$(echo "$version_bytes / 1000000" | bc -l)"
fi
printf 'no-op re-index      %8.3f s   (target <= 1 s)\n' "$noop_med"
printf 'one-file re-index   %8.3f s   (target <= 0.150 s, whole process)\n' "$touch_med"
printf 'index.db size       %8.1f MB  ratio to source %.2f (target <= 1.0); wal %.1f MB\n' "$(echo "$db_bytes / 1000000" | bc -l)" "$(echo "$db_bytes / $src_bytes" | bc -l)" "$(echo "$wal / 1000000" | bc -l)"
printf 'peak RSS (cold)     %8.0f MB  (target <= 1024 MB)\n' "$(echo "$rss_max / 1024" | bc -l)"
