# install_deb: the Debian packages make deb built (build/deb/) install on
# this machine with apt-get, work, and go away again: crawler --version
# and a crawl of the bundled course site by /usr/bin/crawler (the golden
# directory, byte for byte), the man page, a program built against
# libcrawler-dev through pkg-config; then apt-get purge leaves none of
# their files. Also: lintian found no error or warning, and the
# packages' version is debian/changelog's and CRAWL_VERSION.
#
# It changes the machine, so it runs only as root (make deb-test, .ci/run;
# never make test), removes what it installed however it ends (the EXIT
# trap, and a state file for a run killed before its trap ran: the next
# run purges first), and leaves alone packages it did not install. The
# build tree's programs are never used for the checks: /usr/bin/crawler
# by its path. The test server is the build tree's, on loopback.
. "$(dirname "$0")/../integration/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "installs packages system-wide: root only"
require_cmd apt-get dpkg dpkg-deb dpkg-parsechangelog cc pkg-config
PKGS="tse-crawler libcrawler1 libtsepagedir2 libcrawler-dev"
D=$B/deb
DEBS=
for p in $PKGS; do
  f=$(ls "$D/${p}"_*.deb 2>/dev/null)
  [ -n "$f" ] && [ "$(printf '%s\n' "$f" | wc -l)" = 1 ] ||
    skip_all "no single $D/${p}_*.deb: run make deb"
  DEBS="$DEBS $f"
done
require_file "$TESTSERVER" "$D/lintian.txt"
mktemp_dir
STATE=/var/lib/tse-crawler-install-deb-test
export DEBIAN_FRONTEND=noninteractive

VERSION=$(sed -n 's/^#define CRAWL_VERSION "\(.*\)"$/\1/p' \
  "$TOP/engine/crawl.h")
check_eq "debian/changelog's version is CRAWL_VERSION" \
  "$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)" "$VERSION"
for f in $DEBS; do
  check_eq "$(basename "$f"): version $VERSION" \
    "$(dpkg-deb -f "$f" Version)" "$VERSION"
done
check_eq "lintian reports no error and no warning" \
  "$(grep -E '^[EW]: ' "$D/lintian.txt")" ""

installed() {  # installed PKG: is PKG installed?
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'
}
# apt-get waits for dpkg's lock (an apt-get of a run killed before may
# still hold it) rather than fail at once.
APT="apt-get -y -q -o DPkg::Lock::Timeout=300"
purge() {
  # shellcheck disable=SC2086  # one word a package
  $APT purge $PKGS >>"$TEST_DIR/purge.log" 2>&1
}
if [ -e "$STATE" ]; then
  echo "# $STATE: a run was stopped before its clean-up; purging" >&2
  purge
  rm -f "$STATE"
fi
for p in $PKGS; do
  installed "$p" && skip_all "$p is installed, not by this test: left alone"
done

deb_cleanup() {
  [ -e "$STATE" ] || return 0
  purge
  rm -f "$STATE"
}
trap 'rc=$?; deb_cleanup; (exit $rc); lib_cleanup' EXIT

touch "$STATE"
# shellcheck disable=SC2086  # one word a file
$APT install --no-install-recommends $DEBS >"$TEST_DIR/install.log" 2>&1
check_eq "apt-get install ./*.deb succeeds" "$?" 0
if [ "$TAP_FAILED" != 0 ]; then
  tail -n 20 "$TEST_DIR/install.log" >&2
  finish
fi
for p in $PKGS; do
  check "$p is installed" installed "$p"
done

check_eq "/usr/bin/crawler --version" \
  "$(/usr/bin/crawler --version | head -n 1 | cut -d' ' -f1-2)" \
  "crawler $VERSION"
check "tse-crawler holds crawler(1)" sh -c \
  "dpkg-deb -c '$D/tse-crawler_${VERSION}_'*.deb | grep ' ./usr/share/man/man1/crawler.1.gz$' >/dev/null"
if command -v man >/dev/null 2>&1 && [ -e /usr/share/man/man1/crawler.1.gz ]; then
  check_eq "man crawler renders without a warning" \
    "$(MANWIDTH=80 man --warnings=w crawler 2>&1 >/dev/null)" ""
  check_eq "man 3 tsepagedir_load opens tsepagedir(3)" \
    "$(man -w 3 tsepagedir_load)" /usr/share/man/man3/tsepagedir.3.gz
  check_eq "man tsepagedir renders without a warning" \
    "$(MANWIDTH=80 man --warnings=w 1 tsepagedir 2>&1 >/dev/null)" ""
else
  skip "man crawler renders without a warning" \
    "no man, or dpkg excludes man pages here"
  skip "man 3 tsepagedir_load opens tsepagedir(3)" \
    "no man, or dpkg excludes man pages here"
  skip "man tsepagedir renders without a warning" \
    "no man, or dpkg excludes man pages here"
fi

server_start "$SITES/course" || { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/pages"
/usr/bin/crawler --quiet --rate 0 "$BASE_URL/index.html" "$TEST_DIR/pages" 2
check_eq "the installed crawler crawls the course site" "$?" 0
portless "$TEST_DIR/pages" "$TEST_DIR/portless"
check "and saves the golden directory byte for byte" \
  diff -r "$TOP/pageDirectory-samples/course-d2" "$TEST_DIR/portless"
/usr/bin/tsepagedir check "$TEST_DIR/pages" >/dev/null
check_eq "the installed tsepagedir checks it" "$?" 0
server_stop

# libcrawler-dev: the system's pkg-config finds both libraries.
mkdir "$TEST_DIR/src"
cp "$TOP/tests/consumer/crawl_user.c" "$TOP/tests/consumer/words.c" \
  "$TEST_DIR/src/"
unset PKG_CONFIG_PATH
(cd "$TEST_DIR/src" &&
 cc -std=c11 -Wall -Wextra -Werror -o words words.c \
   $(pkg-config --cflags --libs libtsepagedir) &&
 cc -std=c11 -Wall -Wextra -Werror -o crawl_user crawl_user.c \
   $(pkg-config --cflags --libs libcrawler)) >&2
check_eq "programs build against libcrawler-dev through pkg-config" "$?" 0
check "words runs on the packaged libtsepagedir.so.2" sh -c \
  "ldd '$TEST_DIR/src/words' | grep -qE 'libtsepagedir.so.2 => (/usr)?/lib/'"
check_eq "words reads every page the installed crawler saved" \
  "$("$TEST_DIR/src/words" "$TEST_DIR/pages" | wc -l)" \
  "$(( $(ls "$TEST_DIR/pages" | wc -l) + 1 ))"
cp -r "$TOP/tests/consumer/cs50" "$TEST_DIR/src/"
(cd "$TEST_DIR/src/cs50" &&
 cc -std=c11 -Wall -Wextra -Werror -o indexer indexer.c pagedir.c \
   $(pkg-config --cflags --libs libtsepagedir)) >&2
check_eq "a CS50-style indexer builds beside the packaged libtsepagedir" "$?" 0
mkdir "$TEST_DIR/cs50-new"
check_eq "and its own pagedir_* and the library's agree on every page" \
  "$("$TEST_DIR/src/cs50/indexer" "$TEST_DIR/pages" "$TEST_DIR/cs50-new" |
     tail -n 1)" "own calls $(( $(ls "$TEST_DIR/pages" | wc -l) + 3 ))"
check_eq "crawl_user crawls through the packaged libcrawler.so.1" \
  "$("$TEST_DIR/src/crawl_user" | tail -n 1)" "version $VERSION"

purge
check_eq "apt-get purge succeeds" "$?" 0
rm -f "$STATE"
for p in $PKGS; do
  check "$p is gone" sh -c "! dpkg-query -W -f='\${Status}' $p 2>/dev/null |
    grep -q ' installed\$'"
done
for f in /usr/bin/crawler /usr/include/tse \
         "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)/libtsepagedir.so.2" \
         /usr/bin/tsepagedir; do
  check "$f is gone" test ! -e "$f"
done
finish
