#!/bin/sh
# bench/hol-site.sh DIR [HOSTS] [PAGES]: write the head-of-line site
# (issue 13, item 1) into DIR, for tests/server/testserver (one directory
# per host, "{{port}}" substituted when served).
#
# HOSTS hosts, 127.0.0.2 to 127.0.0.(HOSTS+1) (default 10), each with a
# robots.txt, an index.html and PAGES pages p1.html ... (default 59). The
# seed host's (127.0.0.2's) index links its own pages first, then the
# other hosts' indexes; every other index links its own pages. Crawled
# from http://127.0.0.2:PORT/index.html at depth 2, that is
# HOSTS * (PAGES + 1) pages and HOSTS * (PAGES + 2) requests, the same
# number on every host: a polite crawl can finish every host in
# (PAGES + 1) / RATE seconds after its robots.txt, so a crawl in which
# the commit waits for the seed host's pages while the other hosts idle
# shows at once in the server's log.
#
# Prints the seed URL's path, the hosts and the expected counts on stderr.
set -eu
DIR=${1:?usage: hol-site.sh DIR [HOSTS] [PAGES]}
NH=${2:-10}
NP=${3:-59}
mkdir -p "$DIR"
i=2
while [ "$i" -le $((NH + 1)) ]; do
  h=127.0.0.$i
  d=$DIR/$h
  mkdir -p "$d"
  printf 'User-agent: *\nDisallow: /private/\n' > "$d/robots.txt"
  {
    printf '<!DOCTYPE html>\n<html><head><title>%s</title></head>\n' "$h"
    printf '<body><h1>Host %s</h1>\n<ul>\n' "$h"
    p=1
    while [ "$p" -le "$NP" ]; do
      printf '<li><a href="p%d.html">page %d of %s</a></li>\n' "$p" "$p" "$h"
      p=$((p + 1))
    done
    if [ "$i" = 2 ]; then
      j=3
      while [ "$j" -le $((NH + 1)) ]; do
        printf '<li><a href="http://127.0.0.%d:{{port}}/index.html">host 127.0.0.%d</a></li>\n' "$j" "$j"
        j=$((j + 1))
      done
    fi
    printf '</ul></body></html>\n'
  } > "$d/index.html"
  p=1
  while [ "$p" -le "$NP" ]; do
    {
      printf '<!DOCTYPE html>\n<html><head><title>%s page %d</title></head>\n' "$h" "$p"
      printf '<body><h1>Page %d of %s</h1>\n' "$p" "$h"
      printf '<p>A page of the head-of-line site: some text so that it is\n'
      printf 'not empty, and a link home, which the crawl has seen.</p>\n'
      printf '<p><a href="index.html">home</a></p></body></html>\n'
    } > "$d/p$p.html"
    p=$((p + 1))
  done
  i=$((i + 1))
done
echo "hol-site: $NH hosts x (robots.txt, index, $NP pages) in $DIR;" \
  "seed /index.html on 127.0.0.2; depth 2: $((NH * (NP + 1))) pages," \
  "$((NH * (NP + 2))) requests" >&2
