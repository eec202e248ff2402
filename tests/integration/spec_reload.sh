# spec_reload: a speculative page adopted at a lower depth than it
# was fetched at is reloaded from its temporary file (webcrawl.c, reload);
# when that read fails, wc_parse returns with p->tmp still naming the file
# written at the speculative depth, and wc_commit, seeing p->tmp, saves it:
# the page file says the wrong depth, its links were never scanned, and the
# crawl exits 0 (write_errno is only looked at when p->tmp is NULL).
#
# Site: s4 -> slowx (4 s), A; A -> B; B -> X; slowx -> X; X -> Y.
# Depth 3. A (depth 1) is parsed while the commit waits for slowx, and
# speculates B (2); B speculates X (3), fetched and parked, not scanned
# (3 = maxDepth). slowx's commit adds X at depth 2: adopted, reloaded,
# scanned, Y saved at depth 3. An LD_PRELOAD shim makes gzopen() of
# ".tmp-*" for reading fail with EIO. Expected: the crawl stops (exit 6)
# or gives the same directory as without the shim; seen: exit 0, page X
# saved with depth 3, page Y missing.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd cc
mktemp_dir
if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
  skip_all "the LD_PRELOAD shim and a sanitizer runtime do not mix"
fi
cat > "$TEST_DIR/failtmp.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <zlib.h>
gzFile gzopen(const char *path, const char *mode)
{
  static gzFile (*real)(const char *, const char *);
  if (real == NULL)
    real = (gzFile(*)(const char *, const char *))dlsym(RTLD_NEXT, "gzopen");
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  if (mode[0] == 'r' && strncmp(b, ".tmp-", 5) == 0) {
    errno = EIO;
    return NULL;
  }
  return real(path, mode);
}
C
cc -shared -fPIC -o "$TEST_DIR/failtmp.so" "$TEST_DIR/failtmp.c" -ldl ||
  skip_all "cannot build the LD_PRELOAD shim"
S=$TEST_DIR/site
mkdir "$S"
printf 'User-agent: *\nAllow: /\n' > "$S/robots.txt"
printf '<html><body><a href="slowx.html">s</a> <a href="A.html">a</a></body></html>\n' > "$S/s4.html"
printf '<html><body><p>slow</p><a href="X.html">x</a></body></html>\n' > "$S/slowx.html"
printf '<html><body><a href="B.html">b</a></body></html>\n' > "$S/A.html"
printf '<html><body><a href="X.html">x</a></body></html>\n' > "$S/B.html"
printf '<html><body><a href="Y.html">y</a></body></html>\n' > "$S/X.html"
printf '<html><body><p>y</p></body></html>\n' > "$S/Y.html"
printf '/slowx.html delay 4\n' > "$S/rules"
server_start "$S" --rules "$S/rules" || { not_ok "server starts"; finish; }

crawl() {  # crawl NAME [PRELOAD]: exit status in RC
  mkdir "$TEST_DIR/$1"
  RC=0
  LD_PRELOAD=${2:-} "$BIN/crawler" --rate 50 --burst 50 "$BASE_URL/s4.html" \
    "$TEST_DIR/$1" 3 >/dev/null 2>"$TEST_DIR/$1.err" || RC=$?
}
crawl plain
check_eq "the plain crawl succeeds" "$RC" 0
check "... and saves Y.html" grep -qx "$BASE_URL/Y.html" "$TEST_DIR"/plain/6
crawl shim "$TEST_DIR/failtmp.so"
sed 's/^/# /' "$TEST_DIR/shim.err" | tail -n 3 >&2
if [ "$RC" = 0 ]; then
  check "a read error on reload: exit 0 only with the plain crawl's result" \
    diff -r "$TEST_DIR/plain" "$TEST_DIR/shim"
else
  check_eq "a read error on reload stops the crawl as an I/O error" "$RC" 6
fi

# The same with X noindex (a robots meta, read at the speculative parse
# since X was not scanned there): the failed reload must not become
# "noindex, no links" (Y lost, exit 0), nor be journaled as X's outcome.
printf '<html><head><meta name="robots" content="noindex"></head><body><a href="Y.html">y</a></body></html>\n' >"$S/X.html"
crawl plainni
check_eq "noindex X: the plain crawl succeeds" "$RC" 0
check "noindex X: ... and saves Y.html" \
  sh -c "grep -lx '$BASE_URL/Y.html' '$TEST_DIR'/plainni/[0-9]* >/dev/null"
crawl shimni "$TEST_DIR/failtmp.so"
sed 's/^/# /' "$TEST_DIR/shimni.err" | tail -n 3 >&2
if [ "$RC" = 0 ]; then
  check "noindex X: a read error on reload: exit 0 only with the plain result" \
    diff -r "$TEST_DIR/plainni" "$TEST_DIR/shimni"
else
  check_eq "noindex X: a read error on reload stops the crawl (exit 6)" "$RC" 6
  check "noindex X: ... and X's outcome is not journaled" \
    sh -c "! grep -q '^noindex .*X.html' '$TEST_DIR/shimni/.journal'"
fi
finish
