# cluster_bind: the binding of a shared crawl to its page directory
# (wcluster_pagedir) where timing decides, with an LD_PRELOAD shim that
# stalls one stat() or fails the hard-link probe. Found by review:
#  A. two workers started together, one stalled between reading "not
#     bound" and looking for page 1; the other bound the directory and
#     committed page 1; the stalled one was refused for good (exit 3);
#  B. a Redis that lost its last second kept the crawl but not the
#     binding: every worker joining after was refused, and had the first
#     one died, nobody could have gone on with the crawl;
#  C. a directory refused for having no hard links had been bound
#     already: the crawl could not use any other;
#  D. a committer whose directory was replaced under it (its marker
#     changed) cut it back at its next turn, and only then found out.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd redis-server redis-cli cc
mktemp_dir
if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
  skip_all "the LD_PRELOAD shim and a sanitizer runtime do not mix"
fi
cat >"$TEST_DIR/shim.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* SHIM_STALL=SUFFIX: sleep SHIM_SECS before the first stat() of a path
 * ending in SUFFIX. SHIM_NOLINK=1: link() of the binding's probe fails
 * as on a file system without hard links. */
static int stalled;
int stat(const char *p, struct stat *sb)
{
  static int (*real)(const char *, struct stat *);
  if (real == NULL)
    real = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "stat");
  const char *suf = getenv("SHIM_STALL");
  if (suf != NULL && !stalled) {
    size_t a = strlen(p), b = strlen(suf);
    if (a >= b && strcmp(p + a - b, suf) == 0) {
      stalled = 1;
      sleep((unsigned)atoi(getenv("SHIM_SECS") ? getenv("SHIM_SECS") : "3"));
    }
  }
  return real(p, sb);
}
int link(const char *a, const char *b)
{
  static int (*real)(const char *, const char *);
  if (real == NULL)
    real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
  if (getenv("SHIM_NOLINK") != NULL && strstr(a, ".tmp-probe") != NULL) {
    errno = EPERM;
    return -1;
  }
  return real(a, b);
}
C
cc -shared -fPIC -o "$TEST_DIR/shim.so" "$TEST_DIR/shim.c" -ldl ||
  skip_all "cannot build the LD_PRELOAD shim"
SHIM=$TEST_DIR/shim.so
redis_start || { not_ok "redis-server starts"; finish; }
cluster_site || { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/ref"
"$BIN/crawler" --quiet "${CRAWL[@]}" "$SEED" "$TEST_DIR/ref" 2

# wait_file FILE: until FILE exists, for up to 30 s.
wait_file() {
  for _ in $(seq 1 300); do
    [ -e "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# w NAME DIR [VAR=VALUE...]: one worker of crawl NAME into DIR, with
# those variables in its environment; its exit status.
w() {
  local name=$1 dir=$2
  shift 2
  env "$@" timeout 120 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
    --crawl-name "$name" "${CRAWL[@]}" "$SEED" "$dir" 2 \
    2>>"$TEST_DIR/$name.err"
}

# A: W2 stalls 4 s before it looks for page 1; W1 binds meanwhile.
D=$TEST_DIR/race
mkdir "$D"
w race "$D" LD_PRELOAD="$SHIM" SHIM_STALL=/race/1 SHIM_SECS=4 &
w2=$!
sleep 1
w race "$D" &
w1=$!
wait $w2
c2=$?
wait $w1
c1=$?
check_eq "A: the worker that bound the directory completes" "$c1" 0
check_eq "A: the one started with it and stalled is not refused" "$c2" 0
check "A: one process's directory" diff -r "$TEST_DIR/ref" "$D"

# B: Redis's AOF is copied after the crawl's creation, before its
# binding (W1 stalls 3 s between them); W1 commits pages; Redis comes
# back from the copy; W1 goes on, and W3 joins.
E=$TEST_DIR/rb
mkdir "$E"
w rb "$E" LD_PRELOAD="$SHIM" SHIM_STALL=/rb/1 SHIM_SECS=3 &
w1=$!
sleep 1
redis-cli -p "$REDIS_PORT" BGREWRITEAOF >/dev/null
sleep 0.5
cp -a "$REDIS_DIR/appendonlydir" "$TEST_DIR/aof"
check_eq "B: the copy has the crawl, not its binding" \
  "$(redis-cli -p "$REDIS_PORT" HEXISTS 'tse:{rb}:meta' note:pagedir)" 0
wait_file "$E/3"
check "B: pages committed before Redis goes" test -e "$E/3"
redis_kill
rm -rf "$REDIS_DIR/appendonlydir"
cp -a "$TEST_DIR/aof" "$REDIS_DIR/appendonlydir"
redis_restart || not_ok "redis-server restarts"
# W1's next commit is refused (Redis is behind it): its next turn binds
# the directory again. W3 joins after.
bound=0
for _ in $(seq 1 300); do
  bound=$(redis-cli -p "$REDIS_PORT" HEXISTS 'tse:{rb}:meta' note:pagedir)
  [ "$bound" = 1 ] && break
  sleep 0.1
done
check_eq "B: the committer's next turn records the binding again" "$bound" 1
w rb "$E" &
w3=$!
wait $w3
c3=$?
wait $w1
c1=$?
check_eq "B: the first worker completes after the rollback" "$c1" 0
check_eq "B: a worker joining after is not refused" "$c3" 0
check "B: one process's directory" diff -r "$TEST_DIR/ref" "$E"

# C: the first directory has no hard links; the next one has.
P1=$TEST_DIR/nolinks P2=$TEST_DIR/links
mkdir "$P1" "$P2"
w probe "$P1" LD_PRELOAD="$SHIM" SHIM_NOLINK=1
check_eq "C: a directory without hard links is refused (exit 3)" "$?" 3
check "C: saying why" grep -q "hard links" "$TEST_DIR/probe.err"
check "C: leaving nothing there" test -z "$(ls -A "$P1")"
w probe "$P2"
check_eq "C: the crawl then runs in a directory with hard links" "$?" 0
check "C: one process's directory" diff -r "$TEST_DIR/ref" "$P2"
# D: the marker changes under a running committer; Redis then comes
# back behind it (from a copy), so its next turn would cut the
# directory back to Redis's position.
F=$TEST_DIR/moved
mkdir "$F"
w moved "$F" &
w1=$!
wait_file "$F/3"
redis-cli -p "$REDIS_PORT" BGREWRITEAOF >/dev/null
sleep 1.2
cp -a "$REDIS_DIR/appendonlydir" "$TEST_DIR/aof-d"
wait_file "$F/20"
touch "$F/.crawler"
n=$(ls "$F" | grep -c '^[0-9]*$')
redis_kill
rm -rf "$REDIS_DIR/appendonlydir"
cp -a "$TEST_DIR/aof-d" "$REDIS_DIR/appendonlydir"
redis_restart || not_ok "redis-server restarts"
wait $w1
check_eq "D: the committer stops (exit 9)" "$?" 9
check "D: saying its directory changed" grep -q "marker changed" \
  "$TEST_DIR/moved.err"
check "D: nothing was cut back: no page kept aside" \
  test -z "$(ls -A "$F" | grep '^\.tmp-kept-')"
check "D: every page it had published is still there" \
  test "$(ls "$F" | grep -c '^[0-9]*$')" -ge "$n"
finish
