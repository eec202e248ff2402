#!/bin/sh
# bench/many-site.sh DIR ADDR PORT HOSTS PAGES: a site of HOSTS hosts, one
# a port (ADDR:PORT to PORT+HOSTS-1, ADDR in 127.0.0.0/8), for
# bench/delayserver --ports.
# bench/many-site.sh --names DIR HOSTS PAGES: the same site of HOSTS hosts
# by name, h0.test to hHOSTS-1.test (.test: a name reserved never to
# resolve, RFC 6761), port 80, for bench/delayserver --vhosts (reached as
# an HTTP proxy).
#
# Every host serves /robots.txt (disallowing /private/), /index.html and
# /p1.html to /pPAGES.html (about 2 KB each, linked from its index; each
# links its index and the next page). The seed, http://ADDR:PORT/index.html
# (http://h0.test/index.html), also links every host's index. All hosts
# but the seed share one tree, DIR/ADDR/ (DIR/_common/); the seed's is
# DIR/ADDR:PORT/ (DIR/h0.test/): delayserver serves a host's own tree
# where it exists. A crawl of depth 2 saves HOSTS x (PAGES + 1) pages in
# HOSTS x (PAGES + 2) requests, robots.txt included.
set -eu
if [ "${1:-}" = --names ]; then
  dir=${2:?usage: many-site.sh --names DIR HOSTS PAGES}
  hosts=${3:?}
  pages=${4:?}
  common=$dir/_common
  seed=$dir/h0.test
else
  dir=${1:?usage: many-site.sh DIR ADDR PORT HOSTS PAGES}
  addr=${2:?}
  port=${3:?}
  hosts=${4:?}
  pages=${5:?}
  common=$dir/$addr
  seed=$dir/$addr:$port
fi
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
  if [ -n "${addr:-}" ]; then
    awk -v a="$addr" -v p="$port" -v n="$hosts" 'BEGIN {
      for (i = p; i < p + n; i++)
        printf "<a href=\"http://%s:%d/index.html\">host %d</a>\n", a, i, i }'
  else
    awk -v n="$hosts" 'BEGIN {
      for (i = 0; i < n; i++)
        printf "<a href=\"http://h%d.test/index.html\">host %d</a>\n", i, i }'
  fi
  echo "</body></html>"
} > "$seed/index.html"
