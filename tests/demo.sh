#!/usr/bin/env bash
# tests/demo.sh BUILD_DIR: serve the bundled course site on loopback, crawl
# it into a fresh page directory, and say where the pages are.
set -euo pipefail
B=${1:?usage: demo.sh BUILD_DIR}
TOP=$(cd "$(dirname "$0")/.." && pwd)
SITE=$TOP/tests/fixtures/sites/course
DEPTH=${DEPTH:-3}
OUT=$B/demo/pages-$(date +%Y%m%d-%H%M%S)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tse-demo.XXXXXX")
mkdir -p "$OUT"
"$B/tests/testserver" --root "$SITE" --host 127.0.0.1 --max-seconds 300 \
  --portfile "$WORK/port" --log "$WORK/requests.log" 2>"$WORK/server.err" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
[ -s "$WORK/port" ] || { cat "$WORK/server.err" >&2; exit 1; }
SEED=http://127.0.0.1:$(cat "$WORK/port")/index.html
echo "demo: serving tests/fixtures/sites/course at $SEED (loopback only)"
echo "demo: $B/bin/crawler --log --rate 5 $SEED $OUT $DEPTH"
echo
"$B/bin/crawler" --log --rate 5 "$SEED" "$OUT" "$DEPTH"
echo
echo "demo: $(ls "$OUT" | wc -l) pages saved in $OUT:"
for f in $(ls "$OUT" | sort -n); do
  printf '  %s/%-3s depth %s  %s\n' "$OUT" "$f" "$(sed -n 2p "$OUT/$f")" \
    "$(sed -n 1p "$OUT/$f")"
done
