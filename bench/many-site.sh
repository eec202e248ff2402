#!/bin/sh
# bench/many-site.sh DIR ADDR PORT HOSTS PAGES: a site of HOSTS hosts, one
# a port (ADDR:PORT to PORT+HOSTS-1, ADDR in 127.0.0.0/8), for
# bench/delayserver --ports.
#
# Every host serves /robots.txt (disallowing /private/), /index.html and
# /p1.html to /pPAGES.html (about 2 KB each, linked from its index; each
# links its index and the next page). The seed, http://ADDR:PORT/index.html,
# also links every host's index. All hosts but the seed share one tree,
# DIR/ADDR/; the seed's is DIR/ADDR:PORT/ (delayserver serves
# DIR/ADDR:PORT/ where it exists). A crawl of depth 2 saves HOSTS x
# (PAGES + 1) pages in HOSTS x (PAGES + 2) requests, robots.txt included.
set -eu
dir=${1:?usage: many-site.sh DIR ADDR PORT HOSTS PAGES}
addr=${2:?}
port=${3:?}
hosts=${4:?}
pages=${5:?}
common=$dir/$addr
seed=$dir/$addr:$port
mkdir -p "$common" "$seed"
filler=$(awk 'BEGIN { for (i = 0; i < 30; i++) printf "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do.</p>\n" }')
printf 'User-agent: *\nDisallow: /private/\n' > "$common/robots.txt"
{
  echo "<html><head><title>host</title></head><body>"
  for i in $(seq 1 "$pages"); do echo "<a href=\"p$i.html\">page $i</a>"; done
  echo "$filler</body></html>"
} > "$common/index.html"
for i in $(seq 1 "$pages"); do
  {
    echo "<html><head><title>page $i</title></head><body>"
    echo "<a href=\"index.html\">home</a> <a href=\"p$((i % pages + 1)).html\">next</a>"
    echo "$filler</body></html>"
  } > "$common/p$i.html"
  cp "$common/p$i.html" "$seed/"
done
cp "$common/robots.txt" "$seed/"
{
  echo "<html><head><title>seed</title></head><body>"
  for i in $(seq 1 "$pages"); do echo "<a href=\"p$i.html\">page $i</a>"; done
  p=$port
  while [ "$p" -lt $((port + hosts)) ]; do
    echo "<a href=\"http://$addr:$p/index.html\">host $p</a>"
    p=$((p + 1))
  done
  echo "</body></html>"
} > "$seed/index.html"
