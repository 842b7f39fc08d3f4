#!/usr/bin/env bash
# Kernel-scale benchmark (issue 25): unpacks Debian's linux-source-6.1 into a
# scratch directory, runs universal-ctags and a cold `ctxls index` back to
# back on it, then a no-change re-index and the kernel prompt set, and prints
# every figure with its ratio and the load average it was measured at.
#
#   make bench-scale                      # needs: apt-get install linux-source-6.1 universal-ctags
#   SCALE_DIR=/big/disk make bench-scale  # where to unpack (default: a new dir under /var/tmp)
#   KEEP=1 make bench-scale               # keep the unpacked, indexed tree for more queries
set -euo pipefail
BIN=${BIN:-$(pwd)/bin/ctxls}
TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PROMPTS=${PROMPTS:-$(pwd)/scripts/scale/kernel-prompts.tsv}
command -v ctags >/dev/null || { echo "bench-scale: universal-ctags is required (apt-get install universal-ctags)" >&2; exit 1; }
[ -r "$TARBALL" ] || { echo "bench-scale: $TARBALL not found (apt-get install linux-source-6.1)" >&2; exit 1; }
[ -x "$BIN" ] || { echo "bench-scale: $BIN not built (make build)" >&2; exit 1; }

# /var/tmp, not /tmp: the tree and its index are ~4 GB, and /tmp is often
# in memory.
WORK=${SCALE_DIR:-$(mktemp -d /var/tmp/ctxls-bench-scale.XXXXXX)}
mkdir -p "$WORK"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi
load() { cut -d' ' -f1-3 /proc/loadavg; }
now() { date +%s.%N; }
# peak RSS in KiB and wall seconds of a /usr/bin/time -v report
rss() { awk -F': ' '/Maximum resident/ {print $2}' "$1"; }
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1"; }

echo "bench-scale: unpacking $TARBALL into $WORK"
tar -xJf "$TARBALL" -C "$WORK"
TREE=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d | head -1)
# Debian's package appends "/*" to the kernel's .gitignore, which ignores
# every entry at the root; the kernel's own rules stay.
if grep -qx '/\*' "$TREE/.gitignore"; then
	sed -i '/^\/\*$/d' "$TREE/.gitignore"
	echo "bench-scale: removed Debian's '/*' rule from $TREE/.gitignore"
fi
files=$(find "$TREE" -type f | wc -l)
c_files=$(find "$TREE" -type f \( -name '*.c' -o -name '*.h' \) | wc -l)
c_bytes=$(find "$TREE" -type f \( -name '*.c' -o -name '*.h' \) -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "tree: $files files, $c_files .c/.h files, $c_bytes bytes of C"

sync
echo "load before ctags: $(load)"
/usr/bin/time -v ctags -R -f "$WORK/tags" "$TREE" 2>"$WORK/ctags.time" >/dev/null || true
ctags_wall=$(wall "$WORK/ctags.time"); ctags_rss=$(rss "$WORK/ctags.time")
echo "load before index: $(load)"
/usr/bin/time -v "$BIN" index --root "$TREE" --json >"$WORK/index.json" 2>"$WORK/index.time"
index_wall=$(wall "$WORK/index.time"); index_rss=$(rss "$WORK/index.time")
db_bytes=$(stat -c %s "$TREE/.ctxls/index.db")
summary=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["files"] or sys.exit("bench-scale: no file indexed; ignored by %s" % d.get("ignored_by")); print("files %d parsed %d entities %d refs %d resolved %d" % (d["files"], d["parsed"], d["entities"], d["refs"], d["resolved"]))' "$WORK/index.json")
t0=$(now); "$BIN" index --root "$TREE" >/dev/null; t1=$(now)
noop=$(echo "$t1 - $t0" | bc)
load_after=$(load)

printf '\n%-28s %14s %14s %9s\n' "figure" "ctxls" "peer" "ratio"
printf '%-28s %13.1fs %13.1fs %8.2fx  (ctags -R)\n' "cold index wall" "$index_wall" "$ctags_wall" "$(echo "$index_wall / $ctags_wall" | bc -l)"
printf '%-28s %11.2fGiB %11.2fGiB %8.2fx  (ctags -R)\n' "cold index peak RSS" "$(echo "$index_rss / 1048576" | bc -l)" "$(echo "$ctags_rss / 1048576" | bc -l)" "$(echo "$index_rss / $ctags_rss" | bc -l)"
printf '%-28s %12.2fGB %12.2fGB %8.2fx  (C source)\n' "index.db size" "$(echo "$db_bytes / 1000000000" | bc -l)" "$(echo "$c_bytes / 1000000000" | bc -l)" "$(echo "$db_bytes / $c_bytes" | bc -l)"
printf '%-28s %13.2fs\n' "no-change ctxls index" "$noop"
echo "index: $summary"
echo "load after index: $load_after"
echo
echo "prompts ($PROMPTS), load $(load):"
python3 scripts/scale/prompts.py --cmd "$BIN" --root "$TREE" "$PROMPTS"
# Again with the daemon the first pass started: the steady state.
python3 scripts/scale/prompts.py --cmd "$BIN" --root "$TREE" "$PROMPTS"
python3 scripts/scale/hooks.py --cmd "$BIN" --root "$TREE" "$PROMPTS"
"$BIN" daemon stop --root "$TREE" >/dev/null 2>&1 || true
if [ -n "${KEEP:-}" ]; then echo "kept: $TREE"; fi
