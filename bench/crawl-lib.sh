# bench/crawl-lib.sh: the crawl comparisons' shared parts, sourced by
# bench/run.sh and bench/scale.sh (bash). The caller sets:
#   W          the work directory (tmpfs); nginx's files go to $W/nginx/
#   ACCESS     nginx's access log
#   RES        the file crawl appends one line per crawl to
#   RUN_LIMIT  seconds; no single crawl may take longer
#   HOSTS      the site's addresses (for scopes)
# and defines say (a progress line on stderr).

# nginx_start: nginx with the server blocks on stdin, in the configuration
# run.sh's crawls have always used (2 workers, sendfile, keep-alive, the
# access log in the format bench/hol-efficiency.sh reads); sets NGINX_PID,
# so not in a pipeline: nginx_start < <(...).
nginx_start() {
  local conf=$W/nginx/nginx.conf
  mkdir -p "$W/nginx/logs" "$W/nginx/tmp"
  {
    [ "$(id -u)" = 0 ] && echo "user www-data;"
    echo "worker_processes 2;"
    echo "pid $W/nginx/nginx.pid;"
    echo "error_log $W/nginx/logs/error.log warn;"
    echo "events { worker_connections 4096; }"
    echo "http {"
    echo "  include /etc/nginx/mime.types;"
    echo "  default_type application/octet-stream;"
    echo "  sendfile on; tcp_nopush on; tcp_nodelay on;"
    echo "  keepalive_timeout 65; keepalive_requests 1000000;"
    echo "  client_body_temp_path $W/nginx/tmp;"
    echo "  log_format bench '\$msec \$server_addr:\$server_port \$status \$request_uri';"
    echo "  access_log $ACCESS bench;"
    cat
    echo "}"
  } > "$conf"
  rm -f "$W/nginx/nginx.pid"
  nginx -e "$W/nginx/logs/error.log" -p "$W/nginx" -c "$conf"
  for _ in $(seq 50); do
    [ -s "$W/nginx/nginx.pid" ] && break
    sleep 0.1
  done
  NGINX_PID=$(cat "$W/nginx/nginx.pid")
}

# nginx_stop: stops the nginx of nginx_start and waits for its ports.
nginx_stop() {
  [ -n "${NGINX_PID:-}" ] || return 0
  kill "$NGINX_PID" 2> /dev/null || true
  for _ in $(seq 100); do
    kill -0 "$NGINX_PID" 2> /dev/null || break
    sleep 0.1
  done
  NGINX_PID=
}

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# saved_list TOOL DIR: "URL DEPTH" of every saved file (DEPTH "-" for peers)
saved_list() {
  if [ "${1#tse}" != "$1" ]; then # ours: tse, tsev
    find "$2" -maxdepth 1 -name '[0-9]*' -type f -print0 |
      xargs -0 -r awk 'FNR == 1 { u = $0 } FNR == 2 { print u, $0; nextfile }'
  else
    (cd "$2" && find . -type f ! -name robots.txt ! -name '*.tmp' | sed 's|^\./|http://| ; s| |%20|g; s|$| -|')
  fi
}

# check TOOL DIR EXPECTED: prints "files pages other missing extra baddepth order"
# EXPECTED lines: "URL DEPTH KIND" (KIND page or other). Our crawler saves
# pages only, so it is compared with the pages; the peers with everything.
check() {
  local tool=$1 dir=$2 exp=$3
  saved_list "$tool" "$dir" > "$W/saved.txt"
  local order=-
  if [ "${tool#tse}" != "$tool" ]; then
    order=$(find "$dir" -maxdepth 1 -name '[0-9]*' -type f -printf '%f\n' | sort -n |
      awk -v d="$dir" '{ getline l1 < (d "/" $1); getline l2 < (d "/" $1); close(d "/" $1); if (l2 + 0 < prev) bad++; prev = l2 + 0 } END { print bad ? "no" : "yes" }')
  fi
  awk -v tool="$tool" -v order="$order" -v keepport="${CHECK_KEEP_PORT:-}" '
    # wget2 names its directories without the port: compare without it
    # (every site here has one port but the many-host one, which only we
    # crawl: CHECK_KEEP_PORT).
    { if (keepport == "") sub(/:[0-9]+\//, "/", $1) }
    NR == FNR { ed[$1] = $2; ek[$1] = $3; next }
    { got[$1] = $2 }
    END {
      for (u in got) {
        files++
        if (u in ek) { if (ek[u] == "page") pages++; else other++ }
        else extra++
        if (got[u] != "-" && (u in ed) && ed[u] != "-" && got[u] != ed[u]) bad++
      }
      for (u in ek) if (!(u in got) && (tool !~ /^tse/ || ek[u] == "page")) missing++
      printf "%d %d %d %d %d %d %s\n", files, pages, other, missing, extra, bad, order
    }' "$exp" "$W/saved.txt"
}

# crawl SITE MEDIUM ROUND TOOL EXPECTED LOGFILE -- COMMAND...
# Runs COMMAND under /usr/bin/time with a time limit, counts the server's
# requests and checks the saved set; appends a line to $RES.
crawl() {
  local site=$1 medium=$2 round=$3 tool=$4 exp=$5 slog=$6 dir=$7
  shift 8
  rm -rf "$dir"
  mkdir -p "$dir"
  : > "$slog"
  local rc=0
  timeout "$RUN_LIMIT" /usr/bin/time -f '%e %U %S %M' -o "$W/time.txt" \
    "$@" > "$W/last-$tool.out" 2> "$W/last-$tool.err" || rc=$?
  sleep 0.1
  local reqs wall user sys rss c
  reqs=$(wc -l < "$slog")
  read -r wall user sys rss < <(tail -1 "$W/time.txt")
  c=$(check "$tool" "$dir" "$exp")
  if [ "${tool#tse}" != "$tool" ] && [ "$rc" != 0 ]; then
    say "crawler exited $rc: $(tail -3 "$W/last-$tool.err" | tr '\n' ' ')"
  fi
  [ "$rc" = 124 ] && say "$tool: timed out after ${RUN_LIMIT}s"
  echo "$site $medium $round $tool $wall $user $sys $rss $reqs $c $rc" >> "$RES"
  local files=${c%% *}
  say "  $site/$medium round $round $tool: $files files, ${wall}s, $reqs requests, check: $c (exit $rc)"
}

scopes() { local h; for h in $HOSTS; do printf -- '--scope http://%s:%s/ ' "$h" "$1"; done; }
