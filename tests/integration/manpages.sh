# manpages: every page in man/ renders without a warning (groff -ww, and
# man -l as a user runs it), and says what the programs and headers say:
# every option of crawler --help is in crawler(1) and the other way
# round, and in README's table; the synopses of urlnorm(1),
# robotscheck(1) and tsepagedir(1) are their usage lines; crawl(3) and
# tsepagedir(3) name every function (and status) of crawl.h and
# tsepagedir.h; each page's version,
# crawler --version's and debian/changelog's is CRAWL_VERSION; and the
# example programs of the section 3 pages build and run.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$BIN/urlnorm" "$BIN/robotscheck" "$BIN/tsepagedir"
require_cmd groff
mktemp_dir
M=$TOP/man
PAGES="crawler.1 urlnorm.1 robotscheck.1 tsepagedir.1 crawl.3 tsepagedir.3"
VERSION=$(sed -n 's/^#define CRAWL_VERSION "\(.*\)"$/\1/p' \
  "$TOP/engine/crawl.h")

for p in $PAGES; do
  groff -ww -man -Tutf8 "$M/$p" >/dev/null 2>"$TEST_DIR/$p.groff"
  check_eq "$p: groff -ww renders it without a warning" \
    "$?:$(cat "$TEST_DIR/$p.groff")" "0:"
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings=w -l "$M/$p" >"$TEST_DIR/$p.txt" \
      2>"$TEST_DIR/$p.man"
    check_eq "$p: man -l renders it without a warning" \
      "$?:$(cat "$TEST_DIR/$p.man")" "0:"
  else
    skip "$p: man -l renders it without a warning" "man is not installed"
  fi
  check_eq "$p: its version is CRAWL_VERSION" \
    "$(sed -n 's/^\.TH [^ ]* [^ ]* [^ ]* "tse-crawler \([^"]*\)".*/\1/p' \
       "$M/$p")" "$VERSION"
done
check_eq "debian/changelog's version is CRAWL_VERSION" \
  "$(sed -n '1s/^tse-crawler (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")" \
  "$VERSION"
check_eq "crawler --version is CRAWL_VERSION" \
  "$("$BIN/crawler" --version | head -n 1 | cut -d' ' -f1-2)" \
  "crawler $VERSION"

# plain PAGE: the page's source with roff's escapes for '-' and fonts
# undone, enough to find option and function names in it.
plain() {
  sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\e/\\/g' "$M/$1"
}
example() {  # example PAGE: the first .EX block of PAGE, as text
  awk '/^\.EX/ { f = 1; next } /^\.EE/ { exit } f' "$M/$1" |
    sed "s/\\\\-/-/g; s/\\\\e/\\\\/g; s/\\\\(aq/'/g; s/\\\\(dq/\"/g"
}
options() {  # options: the --long options in stdin, sorted, one a line
  grep -oE -- '--[a-z][a-z-]*[a-z]' | sort -u
}

"$BIN/crawler" --help | options >"$TEST_DIR/help.opts"
plain crawler.1 | options >"$TEST_DIR/man.opts"
check "crawler --help lists options" test -s "$TEST_DIR/help.opts"
check_eq "every option of crawler --help is in crawler(1)" \
  "$(comm -23 "$TEST_DIR/help.opts" "$TEST_DIR/man.opts" | tr '\n' ' ')" ""
check_eq "crawler(1) names no option crawler --help lacks" \
  "$(comm -13 "$TEST_DIR/help.opts" "$TEST_DIR/man.opts" | tr '\n' ' ')" ""
grep -oE -- '`--[a-z][a-z-]*[a-z]' "$TOP/README.md" | tr -d '`' | sort -u \
  >"$TEST_DIR/readme.opts"
check_eq "every option of crawler --help is in README.md" \
  "$(grep -vxE -- '--help|--version' "$TEST_DIR/help.opts" |
     comm -23 - "$TEST_DIR/readme.opts" | tr '\n' ' ')" ""

# synopsis PAGE: the first line of the rendered SYNOPSIS, spaces squeezed
# and "X ..." written "X...", as a usage line writes it.
synopsis() {
  MANWIDTH=200 groff -man -Tascii -rLL=200n "$M/$1" 2>/dev/null | col -b |
    sed -n '/^SYNOPSIS/{n;p;q}' | sed 's/^ *//; s/  */ /g; s/ \.\.\./.../g'
}
check_eq "urlnorm(1)'s synopsis is its usage line" \
  "usage: $(synopsis urlnorm.1)" "$("$BIN/urlnorm" --help | head -n 1)"
check_eq "robotscheck(1)'s synopsis is its usage line" \
  "usage: $(synopsis robotscheck.1)" "$("$BIN/robotscheck" --help | head -n 1)"
check_eq "tsepagedir(1)'s synopsis is its usage line" \
  "usage: $(synopsis tsepagedir.1)" "$("$BIN/tsepagedir" --help | head -n 1)"
check_eq "tsepagedir --version is CRAWL_VERSION" \
  "$("$BIN/tsepagedir" --version)" "tsepagedir (tse-crawler) $VERSION"

# The EXAMPLES sessions of urlnorm(1) and robotscheck(1): each "$ CMD"
# line run in a fresh directory with the built programs first in PATH,
# what they print must be the lines that follow.
session() {  # session PAGE
  local dir=$TEST_DIR/session-$1
  mkdir "$dir"
  example "$1" | grep -v '^\$ ' >"$dir/want"
  example "$1" | sed -n 's/^\$ //p' >"$dir/cmds"
  (cd "$dir" && PATH=$BIN:$PATH sh -e cmds >got)
  check_same "$1: its example session prints what it shows" "$dir/got" \
    "$dir/want"
}
session urlnorm.1
session robotscheck.1

# Every function, and every CRAWL_ status, the headers declare.
names() {  # names HEADER PATTERN
  grep -oE "$2" "$TOP/$1" | sort -u
}
for n in $(names engine/crawl.h '\bcrawl(_[a-z]+)?\(' | tr -d '(') \
         $(names engine/crawl.h '\bCRAWL_[A-Z]+\b' | grep -vx CRAWL_EXTERN); do
  check "crawl(3) names $n" grep -qw -- "$n" "$M/crawl.3"
done
funcs=$(names common/tsepagedir.h '\btsepagedir_[a-z_]+\(' | tr -d '(')
check "tsepagedir.h declares functions" test -n "$funcs"
for n in $funcs; do
  check "tsepagedir(3) names $n" sh -c "sed 's/\\\\f[BIRP]//g' '$M/tsepagedir.3' |
    grep -qE '^\.BI? \"?(int|char|void|long long) \*?$n\('"
done

# The EXAMPLES program of a section 3 page builds against the tree and
# runs (the plain build: a sanitizer build's libraries need its runtime).
case "$B" in
  */asan|*/tsan)
    skip "crawl(3)'s example builds and runs" "plain build only"
    skip "tsepagedir(3)'s example builds and runs" "plain build only" ;;
  *)
    example crawl.3 >"$TEST_DIR/crawl_example.c"
    cc -std=gnu11 -Wall -Wextra -Werror -o "$TEST_DIR/crawl_example" \
      "$TEST_DIR/crawl_example.c" -I"$TOP/engine" -L"$B/lib" \
      -lcrawler -pthread >&2
    check_eq "crawl(3)'s example builds" "$?" 0
    check_eq "crawl(3)'s example runs and prints each link" \
      "$(LD_LIBRARY_PATH=$B/lib "$TEST_DIR/crawl_example" | sort |
         tr '\n' ' ')" "a -> b a -> c b -> c "
    example tsepagedir.3 >"$TEST_DIR/words_example.c"
    cc -std=gnu11 -Wall -Wextra -Werror -o "$TEST_DIR/words_example" \
      "$TEST_DIR/words_example.c" -I"$TOP/common" -L"$B/lib" \
      -ltsepagedir >&2
    check_eq "tsepagedir(3)'s example builds" "$?" 0
    LD_LIBRARY_PATH=$B/lib "$TEST_DIR/words_example" \
      "$TOP/pageDirectory-samples/course-d2" >"$TEST_DIR/words.out"
    check_eq "tsepagedir(3)'s example reads every page of a sample" \
      "$?:$(wc -l <"$TEST_DIR/words.out")" \
      "0:$(ls "$TOP/pageDirectory-samples/course-d2" | wc -l)" ;;
esac
finish
