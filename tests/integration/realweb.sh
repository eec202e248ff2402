# realweb: the real web in a box. nginx from Debian, as a user's server
# would be, started here with a config of the test's own on loopback:
#   http://127.0.0.1:HP/          301 to https://127.0.0.1:SP/ (the same
#                                 path), as nearly every site does
#   https://127.0.0.1:SP/         TLS with a CA made here (gen-certs.sh),
#                                 gzip on, an autoindex listing at /files/,
#                                 robots.txt naming a sitemap index of a
#                                 gzipped sitemap
#   http://example.test:NP/       301 to http://www.example.test:NP/, by
#                                 name (server_name), reached through the
#                                 crawler's proxy support: nginx takes an
#                                 absolute request line and picks the
#                                 server by its host
# Checked with default options: an http seed redirecting to https saves
# the site and says the scope grew; without the CA the seed fails naming
# --ca-certificate and leaves the directory as given; gzip transfers are
# saved decoded, byte for byte the files; the listing's files are
# followed; example.test's crawl is www.example.test's pages.
. "$(dirname "$0")/lib.sh"
require_cmd openssl curl
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || skip_all "nginx is not installed"
require_file "$BIN/crawler"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
mktemp_dir
C=$TEST_DIR/certs
sh "$TOP/tests/fixtures/gen-certs.sh" "$C" >&2 ||
  { not_ok "gen-certs.sh makes the certificates"; finish; }

S=$TEST_DIR/site
mkdir -p "$S/docs/files" "$S/www"
{
  echo '<!doctype html><title>docs</title>'
  echo '<a href="guide.html">guide</a> <a href="/files/">files</a>'
  # Enough text for gzip to be worth it (nginx compresses any size here).
  for i in $(seq 200); do echo "<p>paragraph $i of the docs front page</p>"; done
} >"$S/docs/index.html"
echo '<p>the guide</p> <a href="index.html">home</a>' >"$S/docs/guide.html"
echo '<p>a file page</p>' >"$S/docs/files/a.html"
echo '<p>another</p>' >"$S/docs/files/b.html"
printf '%%PDF-1.4 not a page\n' >"$S/docs/files/c.pdf"
echo '<a href="about.html">about</a>' >"$S/www/index.html"
echo '<p>about www</p>' >"$S/www/about.html"
# nginx's own files under a directory only it uses; its workers run as
# root when the test does (else they could not read the temporary tree).
N=$TEST_DIR/nginx
mkdir -p "$N/tmp"

NGINX_PID=
nginx_stop() {
  if [ -n "$NGINX_PID" ]; then
    kill -TERM "$NGINX_PID" 2>/dev/null
    wait "$NGINX_PID" 2>/dev/null
    NGINX_PID=
  fi
}
nginx_exit() {
  local rc=$?
  nginx_stop
  (exit "$rc")
  lib_cleanup
}
trap nginx_exit EXIT INT TERM

# nginx_start: on three random free ports (HP, SP, NP); a port in use
# makes nginx exit at once, so try again, 20 times at most.
nginx_start() {
  local try i
  for try in $(seq 20); do
    HP=$((20000 + RANDOM % 40000)) SP=$((HP + 1)) NP=$((HP + 2))
    {
      [ "$(id -u)" = 0 ] && echo 'user root;'
      cat <<CONF
worker_processes 1;
daemon off;
pid $N/nginx.pid;
error_log $N/error.log;
events { worker_connections 64; }
http {
  log_format t '\$server_port \$request_uri \$status \$gzip_ratio';
  access_log $N/access.log t;
  client_body_temp_path $N/tmp/body;
  proxy_temp_path $N/tmp/proxy;
  fastcgi_temp_path $N/tmp/fastcgi;
  uwsgi_temp_path $N/tmp/uwsgi;
  scgi_temp_path $N/tmp/scgi;
  types { text/html html; application/pdf pdf; }
  default_type application/octet-stream;
  gzip on;
  gzip_min_length 1;
  server { listen 127.0.0.1:$HP; return 301 https://127.0.0.1:$SP\$request_uri; }
  server {
    listen 127.0.0.1:$SP ssl;
    ssl_certificate $C/server.pem;
    ssl_certificate_key $C/server.key;
    root $S/docs;
    autoindex on;
  }
  server {
    listen 127.0.0.1:$NP;
    server_name example.test;
    return 301 http://www.example.test:$NP\$request_uri;
  }
  server { listen 127.0.0.1:$NP; server_name www.example.test; root $S/www; }
}
CONF
    } >"$N/nginx.conf"
    "$NGINX" -p "$N" -c "$N/nginx.conf" 2>>"$N/stderr" &
    NGINX_PID=$!
    for i in $(seq 50); do
      kill -0 "$NGINX_PID" 2>/dev/null || break
      curl -s -o /dev/null "http://127.0.0.1:$HP/" && return 0
      sleep 0.1
    done
    nginx_stop
  done
  return 1
}
nginx_start || { cat "$N/stderr" >&2; not_ok "nginx starts"; finish; }

crawl() {  # crawl NAME DEPTH ARGS... SEED: into $TEST_DIR/NAME; RC
  local name=$1 depth=$2 seed
  shift 2
  seed=${!#}
  mkdir -p "$TEST_DIR/$name"
  RC=0
  "$BIN/crawler" "${@:1:$#-1}" "$seed" "$TEST_DIR/$name" "$depth" \
    >"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err" || RC=$?
}
urls() {  # urls DIR: the saved URLs, in ID order
  local i=1
  while [ -f "$1/$i" ]; do sed -n 1p "$1/$i"; i=$((i + 1)); done
}

# Default options but --rate 0 (a loopback server of our own) and the CA.
crawl docs 2 --rate 0 --ca-certificate "$C/ca.pem" "http://127.0.0.1:$HP/"
check_eq "http seed redirecting to https: exit 0" "$RC" 0
check_eq "the site is saved over https" "$(urls "$TEST_DIR/docs" | sort)" \
  "$(for p in '' files/ files/a.html files/b.html guide.html index.html; do
    echo "https://127.0.0.1:$SP/$p"
  done | sort)"
check "the summary says the scope took in where the seed went" \
  grep -q "the sites the seed redirects to, https://127.0.0.1:$SP/" \
  "$TEST_DIR/docs.err"
check_eq "the seed's redirect is in the journal" \
  "$(grep -c "^redirect 1 http://127.0.0.1:$HP/ https://127.0.0.1:$SP/" \
    "$TEST_DIR/docs/.journal")" 1
check "nginx sent the front page gzip-compressed" \
  grep -Eq "^$SP / 200 [0-9.]+\$" "$N/access.log"
check "and it is saved decoded, byte for byte the file" \
  cmp <(tail -n +3 "$TEST_DIR/docs/1") "$S/docs/index.html"
check "the PDF in the listing is not fetched" \
  bash -c '! grep -q "c.pdf" "$1"' _ "$N/access.log"

# --sitemaps: robots.txt names a sitemap index, which names a gzipped
# sitemap (served as nginx serves a .gz file), which names a page linked
# from nowhere. Written now: they hold the port nginx got.
echo '<p>only the sitemap knows me</p>' >"$S/docs/hidden.html"
printf 'User-agent: *\nDisallow: /private/\nSitemap: https://127.0.0.1:%s/sitemap-index.xml\n' \
  "$SP" >"$S/docs/robots.txt"
printf '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<sitemap><loc>https://127.0.0.1:%s/sitemap-1.xml.gz</loc></sitemap>\n</sitemapindex>\n' \
  "$SP" >"$S/docs/sitemap-index.xml"
printf '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<url><loc>https://127.0.0.1:%s/hidden.html</loc></url>\n</urlset>\n' \
  "$SP" | gzip -9n >"$S/docs/sitemap-1.xml.gz"
crawl maps 1 --rate 0 --sitemaps --ca-certificate "$C/ca.pem" \
  "http://127.0.0.1:$HP/"
check_eq "--sitemaps: exit 0" "$RC" 0
check "the page only the gzipped sitemap of the index names is saved" \
  grep -qx "https://127.0.0.1:$SP/hidden.html" <(urls "$TEST_DIR/maps")
check "nginx was asked for the index and the .gz" \
  bash -c 'grep -q "^$1 /sitemap-index.xml 200" "$2" &&
    grep -q "^$1 /sitemap-1.xml.gz 200" "$2"' _ "$SP" "$N/access.log"

crawl noca 1 --rate 0 "http://127.0.0.1:$HP/"
check_eq "without the CA: exit 8" "$RC" 8
check "naming --ca-certificate" grep -q -- "--ca-certificate" \
  "$TEST_DIR/noca.err"
check_eq "and leaving the directory as it was given" \
  "$(ls -A "$TEST_DIR/noca" | wc -l)" 0
crawl noca 1 --rate 0 --ca-certificate "$C/ca.pem" "http://127.0.0.1:$HP/"
check_eq "the same command with the CA then just works" "$RC" 0

# example.test -> www.example.test, names nginx tells apart, through the
# crawler's proxy support (libcurl's http_proxy).
http_proxy=http://127.0.0.1:$NP crawl www 1 --rate 0 "http://example.test:$NP/"
check_eq "example.test redirecting to www.example.test: exit 0" "$RC" 0
check_eq "www.example.test's pages are saved" \
  "$(urls "$TEST_DIR/www" | tr '\n' ' ')" \
  "http://www.example.test:$NP/ http://www.example.test:$NP/about.html "
check "the marker records the site the seed went to" \
  grep -q "^redirectScope: http://www.example.test:$NP/" \
  "$TEST_DIR/www/.crawler"
finish
