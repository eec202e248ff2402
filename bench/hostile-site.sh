#!/bin/sh
# bench/hostile-site.sh DIR: write the hostile pages of issue 13, item 2,
# into DIR, with DIR/rules for tests/server/testserver (--rules).
#
#   big-X.html  (X = a, b, c, d) 2 MB: <base href="/XXXX.../"> (1,950
#               X's), then 100,000 links <a href=?N>. Each resolves to a
#               URL of about 1,980 bytes (the crawler takes up to 2,048),
#               so one page's links are about 200 MB as strings. The four
#               pages' links differ (one letter each), so no page's links
#               are duplicates of another's. HOSTILE_LINKS=N in the
#               environment makes it N links (tests under a sanitizer).
#   seed.html   links slow.html (answered after 8 s), then big-a.html to
#               big-d.html: the commit waits for slow.html while the four
#               big pages are fetched and parsed behind it.
#   robots.txt  allows everything.
#   rules       slow.html: delay 8; every /XXXX.../?N URL: 200, the
#               server's small built-in page (otherwise a 404), so that a
#               crawl that reaches them saves one and --max-pages stops it.
#
# Crawls (default --rate 1): from big-a.html at depth 1 with --max-pages 2
# (the seed's 100,000 links enter the frontier, one is fetched, the crawl
# stops); from seed.html at depth 2 with --max-pages 3 (seed, slow, big-a:
# the four big pages' links wait for the commit behind slow.html).
set -eu
DIR=${1:?usage: hostile-site.sh DIR}
mkdir -p "$DIR"
printf 'User-agent: *\nAllow: /\n' > "$DIR/robots.txt"
: > "$DIR/rules"
for x in a b c d; do
  awk -v x="$x" -v links="${HOSTILE_LINKS:-100000}" 'BEGIN {
    base = ""
    for (i = 0; i < 1950; i++) base = base x
    printf "<!DOCTYPE html>\n<html><head><title>hostile %s</title>\n", x
    printf "<base href=\"/%s/\"></head>\n<body>\n", base
    for (n = 0; n < links; n++) printf "<a href=?%d>x</a>\n", n
    printf "</body></html>\n"
    # The rule: every URL under the long directory answers 200.
    printf "/%s* status 200\n", base >> "'"$DIR/rules"'"
  }' > "$DIR/big-$x.html"
done
printf '/slow.html delay 8\n' >> "$DIR/rules"
{
  printf '<!DOCTYPE html>\n<html><head><title>seed</title></head><body>\n'
  printf '<a href="slow.html">slow</a>\n'
  for x in a b c d; do printf '<a href="big-%s.html">big %s</a>\n' "$x" "$x"; done
  printf '</body></html>\n'
} > "$DIR/seed.html"
printf '<!DOCTYPE html>\n<html><head><title>slow</title></head><body><p>slow</p></body></html>\n' > "$DIR/slow.html"
echo "hostile-site: seed.html, slow.html, big-[abcd].html" \
  "($(wc -c < "$DIR/big-a.html") bytes each) and rules in $DIR" >&2
