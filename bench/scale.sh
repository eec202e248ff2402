#!/usr/bin/env bash
# bench/scale.sh BUILD_DIR: cost growth with the size of the crawl (issue
# 34): the generated site of 8 hosts with 2-6 KB pages at each size of
# SIZES (total pages), served by nginx on 127.0.0.2-9 from tmpfs, crawled
# with our crawler's default options but --rate 0 (wget2 has no per-host
# rate), as bench/run.sh's crawl comparisons do, against wget2 -t8; output
# to tmpfs, deleted after each crawl's check. Per size: a warm-up round,
# then RUNS rounds, the order alternating; wall, CPU (user + system) and
# peak RSS from GNU time; CPU per page and RSS per page; ours / wget2 per
# round and the median; whether our saved set is exactly the breadth-first
# set of gensite (and how many pages wget2 missed). Then the fit across
# sizes: CPU per page (spread) and RSS = a + b x pages (least squares).
#
# The depth is, per size, the smallest that reaches every page (gensite
# writes the expected sets of depths 3 to 10; depth 5 at 10,000 pages, 6
# at 100,000, 7 at 1,000,000); DEPTH fixes it.
#
# Environment: SIZES (default "10000 100000 1000000"; multiples of 8),
# RUNS (default 3), TOOLS (default "tse wget2"), PAGE_KB (default 2-6),
# DEPTH, SCALE_TMP (tmpfs work directory, default /dev/shm/tse-scale),
# SCALE_PORT (default 38537), SCALE_TSE_ARGS (more options for ours,
# default none), SCALE_KEEP_SITE (1: leave the last site in place).
# Space: at 1,000,000 pages the site takes about 6.1 GB of tmpfs and each
# crawl's output as much again (one output at a time); gensite about 50 s
# and 300 MB. Results: stdout, BUILD_DIR/bench/scale.md, the rows in
# scale.tsv (bench/run.sh's columns), scale-sites.tsv and scale-loads.tsv.
set -euo pipefail
umask 022
B=${1:?usage: scale.sh BUILD_DIR}
B=$(cd "$B" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
SIZES=${SIZES:-10000 100000 1000000}
RUNS=${RUNS:-3}
TOOLS=${TOOLS:-tse wget2}
NTOOLS=$(echo $TOOLS | wc -w)
PAGE_KB=${PAGE_KB:-2-6}
W=${SCALE_TMP:-/dev/shm/tse-scale}
PORT=${SCALE_PORT:-38537}
HOSTS="127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7 127.0.0.8 127.0.0.9"
DOMAINS=$(echo $HOSTS | tr ' ' ',')
CRAWLER=$W/bin/crawler
RES=$W/results.tsv  # run.sh's columns, SITE = the size
LOADS=$W/loads.tsv  # size round tool load-average-before
SITES=$W/sites.tsv  # size depth pages others site-bytes gensite-s gensite-KB
OUT=$W/scale.md
ACCESS=$W/nginx/access.log
RUN_LIMIT=300
T0=$(date +%s)
NGINX_PID=

say() { printf '[%5ds load %s] %s\n' $(($(date +%s) - T0)) "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }
md() { printf '%s\n' "$*" | tee -a "$OUT"; }
. "$TOP/bench/crawl-lib.sh"

for c in nginx wget2 /usr/bin/time; do
  command -v "$c" > /dev/null 2>&1 || { echo "scale.sh: $c missing (bench/run.sh lists the packages)" >&2; exit 1; }
done
make -s -C "$TOP/bench"
[ -x "$B/bench/gensite" ] && [ -x "$B/bin/crawler" ] || { echo "scale.sh: build $B first (make)" >&2; exit 1; }
ss -Hltn "sport = :$PORT" | grep -q . && { echo "scale.sh: port $PORT is in use; set SCALE_PORT" >&2; exit 1; }
for n in $SIZES; do
  [ $((n % 8)) = 0 ] || { echo "scale.sh: size $n is not a multiple of 8" >&2; exit 1; }
done

trap 'nginx_stop' EXIT
trap 'exit 130' INT TERM
rm -rf "$W"
mkdir -p "$W/bin" "$W/nginx"
cp "$B/bin/crawler" "$CRAWLER" # a rebuild during the run must not change it
cp "$B/bench/gensite" "$W/bin/gensite"
: > "$RES"
: > "$LOADS"
: > "$SITES"
: > "$OUT"

# space N: enough free memory for the site and one output (tmpfs is RAM)?
space() {
  local need avail
  need=$(($1 * 13)) # KB: about 6.1 KB of tmpfs a page for the site, as much for an output
  avail=$(awk '/MemAvailable/ { print $2 }' /proc/meminfo)
  if [ "$avail" -lt $((need + 2000000)) ]; then
    echo "scale.sh: $1 pages want about $((need / 1000000 + 2)) GB of memory, $((avail / 1000000)) GB available" >&2
    exit 1
  fi
}

# gen N: the site of N pages in $W/site; sets DEP and EXP.
gen() {
  local n=$1 d cand
  rm -rf "$W/site"
  cand=${DEPTH:-3 4 5 6 7 8 9 10}
  say "gensite: 8 hosts x $((n / 8)) pages of $PAGE_KB KB"
  /usr/bin/time -f '%e %M' -o "$W/gen-time.txt" "$W/bin/gensite" --page-kb "$PAGE_KB" \
    "$W/site" "$PORT" 8 $((n / 8)) $cand 2> "$W/gen.err"
  sed 's/^/  /' "$W/gen.err" >&2
  DEP=
  for d in $cand; do # the smallest depth that reaches every page
    DEP=$d
    grep -q "^gensite: depth $d: $n pages " "$W/gen.err" && break
  done
  for d in $cand; do
    [ "$d" = "$DEP" ] || rm -f "$W/site/expected-$d.txt"
  done
  EXP=$W/site/expected-$DEP.txt
  local pages others bytes
  pages=$(grep -c ' page$' "$EXP")
  others=$(grep -c ' other$' "$EXP")
  bytes=$(du -sb "$W/site" | cut -f1)
  echo "$n $DEP $pages $others $bytes $(cat "$W/gen-time.txt")" >> "$SITES"
  say "depth $DEP: $pages pages, $others other files; site $((bytes / 1000000)) MB; gensite $(cut -d' ' -f1 "$W/gen-time.txt") s, $(($(cut -d' ' -f2 "$W/gen-time.txt") / 1024)) MB"
}

# one N ROUND TOOL: one crawl of the site, its output deleted after the check.
one() {
  local n=$1 r=$2 tool=$3 seed="http://127.0.0.2:$PORT/index.html"
  echo "$n $r $tool $(cut -d' ' -f1 /proc/loadavg)" >> "$LOADS"
  case $tool in
    tse) crawl "$n" tmpfs "$r" tse "$EXP" "$ACCESS" "$W/out/tse" -- \
      "$CRAWLER" --rate 0 ${SCALE_TSE_ARGS:-} $(scopes "$PORT") "$seed" "$W/out/tse" "$DEP" ;;
    wget2) crawl "$n" tmpfs "$r" wget2 "$EXP" "$ACCESS" "$W/out/wget2" -- \
      wget2 --no-config -q -r -l "$DEP" --max-threads 8 -H -D "$DOMAINS" -P "$W/out/wget2" "$seed" ;;
  esac
  rm -rf "$W/out/$tool"
}

md "# Cost growth: $(date -u '+%Y-%m-%d %H:%M UTC')"
md ""
md "Machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB. Crawler: $(cd "$TOP" && git describe --always --dirty 2> /dev/null || echo unknown); $(wget2 --version | head -1 | cut -d' ' -f1-3); $(nginx -v 2>&1 | cut -d' ' -f3). Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
md "Site: gensite --page-kb $PAGE_KB, 8 hosts; ours: \`crawler --rate 0 ${SCALE_TSE_ARGS:-}--scope ... SEED OUT DEPTH\`; wget2: \`wget2 -r -l DEPTH --max-threads 8 -H -D ...\`; 1 warm-up + $RUNS rounds, order alternating."
md ""

for n in $SIZES; do
  space "$n"
  RUN_LIMIT=$((300 + n / 250))
  gen "$n"
  nginx_start < <(for h in $HOSTS; do echo "  server { listen $h:$PORT; root $W/site/$h; }"; done)
  say "nginx up (pid $NGINX_PID); $n pages, depth $DEP, $RUNS rounds"
  for r in $(seq 0 "$RUNS"); do
    for k in $(seq 0 $((NTOOLS - 1))); do
      one "$n" "$r" "$(echo "$TOOLS" | awk -v i=$(((r + k) % NTOOLS + 1)) '{ print $i }')"
    done
  done
  nginx_stop
  : > "$ACCESS"
  [ "${SCALE_KEEP_SITE:-}" = 1 ] && [ "$n" = "${SIZES##* }" ] || rm -rf "$W/site"
done

# --- tables -----------------------------------------------------------------------
# $RES columns: 1 size 2 medium 3 round 4 tool 5 wall 6 user 7 sys 8 rssKB
# 9 requests 10 files 11 pages 12 other 13 missing 14 extra 15 baddepth
# 16 order 17 exit
col() { # col SIZE TOOL EXPR: EXPR over the measured rounds, one a line
  awk -v s="$1" -v t="$2" '$1 == s && $4 == t && $3 > 0 && $17 < 124 { print '"$3"' }' "$RES"
}
f() { awk -v p="$1" '{ if ($1 == "-") print "-"; else printf "%." p "f\n", $1 }'; }
ratio() { # ratio SIZE EXPR: ours / wget2 per measured round
  awk -v s="$1" '$1 == s && $3 > 0 && $5 > 0 && $10 > 0 && $17 < 124 {
      v = '"$2"'; if ($4 == "tse") a[$3] = v; if ($4 == "wget2") b[$3] = v }
    END { for (r in a) if ((r in b) && b[r] > 0) printf "%d %.2f\n", r, a[r] / b[r] }' "$RES" | sort -n
}
md "## Per size (medians of the measured rounds)"
md ""
md "CPU = user + system of the crawler (not nginx); per page = per file saved (ours saves pages only; wget2 also the 64 non-HTML files); RSS = peak (GNU time). Requests = what nginx logged (robots.txt and 404s too). Exact = rounds whose saved set is the breadth-first set (pages, depths and order for ours; pages and other files for wget2). Load = the 1-minute load average before each crawl (min-max)."
md ""
md "| pages | depth | site MB | gensite s / MB | tool | files | missing | exact | requests | wall s | files/s | CPU s | CPU us/page | peak RSS MB | RSS KB/page | load |"
md "| ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
while read -r n dep pages others bytes gs gkb; do
  for t in $TOOLS; do
    nr=$(col "$n" "$t" 1 | wc -l)
    [ "$nr" -gt 0 ] || continue
    ex=$(col "$n" "$t" '($13 == 0 && $14 == 0 && $15 == 0 && $16 != "no")' | awk '{ s += $1 } END { print s + 0 }')
    ld=$(awk -v s="$n" -v t="$t" '$1 == s && $3 == t && $2 > 0 { print $4 }' "$LOADS" | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { print a "-" b }')
    md "| $n | $dep | $((bytes / 1000000)) | $gs / $((gkb / 1024)) | $t | $(col "$n" "$t" '$10' | median) | $(col "$n" "$t" '$13' | median) | $ex/$nr | $(col "$n" "$t" '$9' | median) | $(col "$n" "$t" '$5' | median) | $(col "$n" "$t" '$10 / $5' | median | f 0) | $(col "$n" "$t" '$6 + $7' | median | f 2) | $(col "$n" "$t" '($6 + $7) * 1e6 / $10' | median | f 1) | $(col "$n" "$t" '$8 / 1024' | median | f 1) | $(col "$n" "$t" '$8 / $10' | median | f 3) | $ld |"
  done
done < "$SITES"
md ""
if [ "$NTOOLS" -ge 2 ]; then
  md "## Ours / wget2 -t8, per round (round:ratio), then the median"
  md ""
  md "Goal at 1M pages: files/s at least 1.3, CPU at most 0.8."
  md ""
  md "| pages | files/s | CPU | CPU per file | peak RSS |"
  md "| ---: | --- | --- | --- | --- |"
  rr() { local x; x=$(ratio "$1" "$2"); echo "$(echo "$x" | awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $1, $2 }') **$(echo "$x" | awk '{ print $2 }' | median | f 2)**"; }
  while read -r n _; do
    md "| $n | $(rr "$n" '$10 / $5') | $(rr "$n" '$6 + $7') | $(rr "$n" '($6 + $7) / $10') | $(rr "$n" '$8') |"
  done < "$SITES"
  md ""
fi
md "## Growth across sizes (ours and wget2, medians)"
md ""
md "CPU per page: spread = max / min - 1 over the sizes (goal for ours: within 10%). RSS = a + b x pages, least squares over the sizes (goal for ours: b at most 0.15 KB); step = the RSS added per page from one size to the next."
md ""
md "| tool | CPU us/page by size | spread | peak RSS MB by size | step KB/page | RSS a (MB) | RSS b (KB/page) |"
md "| --- | --- | ---: | --- | --- | ---: | ---: |"
for t in $TOOLS; do
  pts=$(while read -r n _; do
    c=$(col "$n" "$t" '($6 + $7) * 1e6 / $10' | median)
    m=$(col "$n" "$t" '$8' | median)
    [ "$c" != - ] && echo "$n $c $m"
  done < "$SITES")
  [ -n "$pts" ] || continue
  cpu=$(echo "$pts" | awk '{ printf "%s%s: %.1f", (NR > 1 ? ", " : ""), $1, $2 }')
  spread=$(echo "$pts" | awk 'NR == 1 || $2 < lo { lo = $2 } NR == 1 || $2 > hi { hi = $2 } END { printf "%.1f%%", (hi / lo - 1) * 100 }')
  rss=$(echo "$pts" | awk '{ printf "%s%s: %.1f", (NR > 1 ? ", " : ""), $1, $3 / 1024 }')
  step=$(echo "$pts" | awk 'NR > 1 { printf "%s%s-%s: %.3f", (NR > 2 ? ", " : ""), pn, $1, ($3 - pm) / ($1 - pn) } { pn = $1; pm = $3 }')
  fit=$(echo "$pts" | awk '{ x += $1; y += $3; xx += $1 * $1; xy += $1 * $3; k++ } END { d = k * xx - x * x; b = d > 0 ? (k * xy - x * y) / d : 0; printf "%.1f | %.4f", (y - b * x) / k / 1024, b }')
  md "| $t | $cpu | $spread | $rss | ${step:--} | $fit |"
done
md ""
md "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg); total $(($(date +%s) - T0)) s."
mkdir -p "$B/bench"
cp "$OUT" "$B/bench/scale.md"
cp "$RES" "$B/bench/scale.tsv"
cp "$SITES" "$B/bench/scale-sites.tsv"
cp "$LOADS" "$B/bench/scale-loads.tsv"
say "done; tables in $B/bench/scale.md, rows in $B/bench/scale.tsv"
