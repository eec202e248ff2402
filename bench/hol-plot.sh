#!/bin/sh
# bench/hol-plot.sh LOG OUT.svg TITLE [RATE BURST]: the per-host request timeline of a
# crawl as an SVG (gnuplot): x = seconds since the crawl's first request,
# y = host, one mark per request; robots.txt requests marked apart. A
# host waiting while others work shows as a gap in its row. RATE and BURST
# (optional) draw a dashed line where a polite crawl making the same
# requests could have ended at the earliest: the latest, over hosts, of
# the first request + (requests - BURST) / RATE.
#
# LOG: one request a line, field 1 its time in seconds, field 2
# ADDRESS:PORT, field 4 the target (tests/server/testserver's --log; the
# bench's nginx log has the same fields). Hosts are ordered by address.
set -eu
LOG=${1:?usage: hol-plot.sh LOG OUT.svg TITLE}
OUT=${2:?usage: hol-plot.sh LOG OUT.svg TITLE}
TITLE=${3:-requests per host}
RATE=${4:-0}
BURST=${5:-1}
command -v gnuplot > /dev/null 2>&1 || {
  echo "hol-plot.sh: gnuplot is not installed (Debian: gnuplot-nox)" >&2
  exit 1
}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hol-plot.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Hosts by address (127.0.0.2 at the top), data rows "t row robots?".
awk '{ sub(/:[0-9]+$/, "", $2); print $2 }' "$LOG" | sort -u -t. -k1,1n -k2,2n -k3,3n -k4,4n > "$TMP/hosts"
sort -g -k1,1 "$LOG" | awk -v hf="$TMP/hosts" '
  BEGIN { while ((getline h < hf) > 0) row[h] = ++n }
  { h = $2; sub(/:[0-9]+$/, "", h)
    if (NR == 1) t0 = $1
    printf "%.4f %d %d\n", $1 - t0, n + 1 - row[h], ($4 == "/robots.txt") }' > "$TMP/data"
NH=$(wc -l < "$TMP/hosts")
ytics=$(awk -v n="$NH" '{ printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $1, n + 1 - NR }' "$TMP/hosts")
# The earliest end of a polite crawl (0: none drawn).
bound=$(sort -g -k1,1 "$LOG" | awk -v r="$RATE" -v b="$BURST" '
  { if (NR == 1) t0 = $1; if (!($2 in first)) first[$2] = $1 - t0; n[$2]++ }
  END { for (h in n) if (r > 0 && first[h] + (n[h] - b) / r > m) m = first[h] + (n[h] - b) / r
        printf "%.3f", m }')
xmax=$(awk '{ if ($1 > m) m = $1 } END { printf "%d", m + 1 }' "$TMP/data")
gnuplot << GP
set terminal svg size 900,$((120 + 28 * NH)) dynamic font "sans,12"
set output "$OUT"
set title "$TITLE"
set xlabel "seconds since the crawl's first request"
set ylabel "host"
set xrange [0:$xmax]
set yrange [0.4:$NH + 0.6]
set ytics ($ytics)
set grid xtics
set key below horizontal
if ($bound > 0) set arrow from $bound, graph 0 to $bound, graph 1 nohead dt 2 lc rgb "#555555"
if ($bound > 0) set label "bound: $bound s" at $bound, graph 1 offset 0.5,-0.8 left
plot "$TMP/data" using 1:(\$3 == 0 ? \$2 : 1/0) with points pt 7 ps 0.35 lc rgb "#1f5fa8" title "page", \
     "$TMP/data" using 1:(\$3 == 1 ? \$2 : 1/0) with points pt 5 ps 0.6 lc rgb "#c0392b" title "robots.txt"
GP
