# consumer: a program built outside the tree against what make install
# put in a temporary prefix, and nothing else, through pkg-config: a
# crawl() user (tests/consumer/crawl_user.c), an indexer's first step
# (tests/consumer/words.c) counting the words of every page of a saved
# directory, plain and --compress'ed, checked against a count made here,
# and a CS50-style program with its own pagedir_* functions beside the
# library's (tests/consumer/cs50/).
. "$(dirname "$0")/lib.sh"
# Install from the plain build only: sanitizer builds link their runtime.
case "$B" in */asan|*/tsan) skip_all "install is checked on the plain build" ;; esac
require_file "$BIN/crawler" "$B/lib/libcrawler.so" "$B/lib/libtsepagedir.so"
require_cmd cc pkg-config make gzip
mktemp_dir
P=$TEST_DIR/prefix
SAMPLES=$TOP/pageDirectory-samples
VERSION=$(sed -n 's/^#define CRAWL_VERSION "\(.*\)"$/\1/p' \
  "$TOP/engine/crawl.h")

make -s -C "$TOP" install PREFIX="$P" >"$TEST_DIR/make.out" 2>&1
check_eq "make install into a temporary prefix succeeds" "$?" 0

# The sources are copied out of the tree, and pkg-config is told of the
# prefix alone, so nothing of the tree's headers or libraries can be used.
export PKG_CONFIG_PATH=$P/lib/pkgconfig PKG_CONFIG_LIBDIR=$P/lib/pkgconfig
mkdir "$TEST_DIR/src"
cp "$TOP/tests/consumer/crawl_user.c" "$TOP/tests/consumer/words.c" \
  "$TEST_DIR/src/"
cp -r "$TOP/tests/consumer/cs50" "$TEST_DIR/src/"
for m in libcrawler libtsepagedir; do
  check_eq "pkg-config $m: the version is crawl.h's" \
    "$(pkg-config --modversion $m)" "$VERSION"
  flags=$(pkg-config --cflags --libs $m)
  check_eq "pkg-config $m: flags name the prefix only" \
    "$(printf '%s\n' "$flags" | tr ' ' '\n' | grep -E '^-[IL]' |
       grep -vc "^-[IL]$P/")" 0
done

build() {  # build NAME MODULE: cc NAME.c with MODULE's flags, in src/
  (cd "$TEST_DIR/src" &&
   cc -std=c11 -Wall -Wextra -Werror -pedantic -o "$1" "$1.c" \
     $(pkg-config --cflags "$2") $(pkg-config --libs "$2") \
     -Wl,-rpath,"$P/lib")
}

build crawl_user libcrawler 2>&2
check_eq "crawl_user builds against the installed libcrawler" "$?" 0
check "crawl_user runs on the installed libcrawler.so.1" sh -c \
  "ldd '$TEST_DIR/src/crawl_user' | grep -q 'libcrawler.so.1 => $P/lib/'"
"$TEST_DIR/src/crawl_user" >"$TEST_DIR/edges"
check_eq "crawl_user exits 0" "$?" 0
check_eq "crawl_user gets every edge, and the installed version" \
  "$(sort "$TEST_DIR/edges" | tr '\n' ' ')" \
  "a a a b a c b broken b c version $VERSION "

build words libtsepagedir 2>&2
check_eq "words builds against the installed libtsepagedir" "$?" 0
check "words runs on the installed libtsepagedir.so.2" sh -c \
  "ldd '$TEST_DIR/src/words' | grep -q 'libtsepagedir.so.2 => $P/lib/'"

# want DIR: what words must print for plain DIR, counted by the shell.
want() {
  local n=1 f
  while f=$1/$n && [ -f "$f" ]; do
    printf '%d %s %d %s\n' "$n" "$(sed -n 2p "$f")" \
      "$(tail -n +3 "$f" | LC_ALL=C tr -cs 'A-Za-z' '\n' | grep -c .)" \
      "$(sed -n 1p "$f")"
    n=$((n + 1))
  done
  echo "compress $2"
}

# The samples, as the crawler saved them (port 8000), and
# the same crawl --compress'ed: replayed, so by the crawler itself.
for s in course-d2 catalogue-d3; do
  mkdir "$TEST_DIR/$s"
  for f in "$SAMPLES/$s"/* "$SAMPLES/$s/.crawler" "$SAMPLES/$s/.journal" \
    "$SAMPLES/$s/.complete"; do
    [ -e "$f" ] || continue
    cp "$f" "$TEST_DIR/$s/$(basename "$f")"
  done
  depth=${s##*-d}
  mkdir "$TEST_DIR/$s-gz"
  "$BIN/crawler" --quiet --compress --replay "$TEST_DIR/$s" \
    http://127.0.0.1:8000/index.html "$TEST_DIR/$s-gz" "$depth"
  check_eq "$s: a --compress'ed copy is made" "$?" 0
  check "$s: its pages are gzip" gzip -t "$TEST_DIR/$s-gz/1"
  want "$TEST_DIR/$s" no >"$TEST_DIR/$s.want"
  "$TEST_DIR/src/words" "$TEST_DIR/$s" >"$TEST_DIR/$s.got"
  check_eq "$s: words reads the plain directory" "$?" 0
  check_same "$s: words counts every page's words" "$TEST_DIR/$s.got" \
    "$TEST_DIR/$s.want"
  "$TEST_DIR/src/words" "$TEST_DIR/$s-gz" >"$TEST_DIR/$s-gz.got"
  check_eq "$s: words reads the compressed directory" "$?" 0
  sed 's/^compress no$/compress yes/' "$TEST_DIR/$s.want" \
    >"$TEST_DIR/$s-gz.want"
  check_same "$s: and finds the same pages and counts" \
    "$TEST_DIR/$s-gz.got" "$TEST_DIR/$s-gz.want"
done

"$TEST_DIR/src/words" "$TEST_DIR" >/dev/null 2>"$TEST_DIR/notdir.err"
check_eq "words refuses a directory that holds no crawl" "$?" 1

# A CS50-style indexer: its own pagedir_init, pagedir_validate,
# pagedir_load(FILE *) and file_readLine, to the CS50 signatures, with
# <tsepagedir.h> included beside its "pagedir.h" and the library linked.
# The library must call none of them, and the program none of the
# library's by mistake.
(cd "$TEST_DIR/src/cs50" &&
 cc -std=c11 -Wall -Wextra -Werror -pedantic -o indexer indexer.c pagedir.c \
   $(pkg-config --cflags --libs libtsepagedir) -Wl,-rpath,"$P/lib") >&2
check_eq "a CS50-style indexer builds with both headers and -ltsepagedir" \
  "$?" 0
for s in course-d2 catalogue-d3; do
  mkdir "$TEST_DIR/$s-new"
  "$TEST_DIR/src/cs50/indexer" "$TEST_DIR/$s" "$TEST_DIR/$s-new" \
    >"$TEST_DIR/$s.cs50"
  check_eq "$s: the CS50-style indexer's own and the library's loads agree" \
    "$?" 0
  check_eq "$s: it read every page, its own functions called by it alone" \
    "$(tail -n 1 "$TEST_DIR/$s.cs50")" \
    "own calls $(( $(ls "$TEST_DIR/$s" | wc -l) + 3 ))"
done
finish
