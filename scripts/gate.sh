#!/usr/bin/env bash
# Relevance gate: the share of unrelated prompts (scripts/unrelated-prompts.txt)
# that get an injection, and of code questions (scripts/queries.txt) that get
# none, with `ctxls context` on an index of a large tree (default GOROOT/src).
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
WORK=${BENCH_WORK:-/tmp/ctxls-bench-goroot}
SRC=${BENCH_ROOT:-$(go env GOROOT)/src}
if [ ! -d "$WORK/src" ]; then mkdir -p "$WORK"; cp -a "$SRC" "$WORK/src"; fi
TREE="$WORK/src"
"$BIN" index --root "$TREE" >/dev/null
count() { # file → "injected total"
	local inj=0 n=0
	while IFS= read -r q; do
		[ -z "$q" ] && continue
		n=$((n + 1))
		if "$BIN" context --root "$TREE" "$q" | grep -q '^### '; then inj=$((inj + 1)); fi
	done < "$1"
	echo "$inj $n"
}
read -r ui un <<<"$(count scripts/unrelated-prompts.txt)"
read -r ci cn <<<"$(count scripts/queries.txt)"
echo "relevance gate on $SRC"
printf 'unrelated prompts injected   %d/%d (%.0f%%)\n' "$ui" "$un" "$(echo "100 * $ui / $un" | bc -l)"
printf 'code questions not injected  %d/%d (%.0f%%)\n' "$((cn - ci))" "$cn" "$(echo "100 * ($cn - $ci) / $cn" | bc -l)"
