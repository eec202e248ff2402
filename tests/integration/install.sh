# install: make install into a DESTDIR installs the programs, the library
# with its soname and the header, touches nothing else, and a program built
# against the installed header and library crawls; the library exports
# only its API.
. "$(dirname "$0")/lib.sh"
require_file "$B/lib/libcrawler.so"
require_cmd nm cc
mktemp_dir
# Install from the plain build only: sanitizer builds link their runtime.
case "$B" in */asan|*/tsan) skip_all "install is checked on the plain build" ;; esac
D=$TEST_DIR/dest
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/opt/tse >"$TEST_DIR/make.out" 2>&1
check_eq "make install succeeds" "$?" 0
for f in bin/crawler bin/robotscheck bin/urlnorm lib/libcrawler.so \
         lib/libcrawler.so.1 lib/libcrawler.so.1.0.0 include/crawl.h; do
  check "installed $f" test -e "$D/opt/tse/$f"
done
check_eq "nothing outside PREFIX" "$(ls "$D")" opt
check "the library has its soname" \
  sh -c "objdump -p '$D/opt/tse/lib/libcrawler.so.1.0.0' | grep -q 'SONAME *libcrawler.so.1'"
exported=$(nm -D --defined-only "$D/opt/tse/lib/libcrawler.so" |
           awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
check_eq "only the API is exported" "$exported" "crawl crawl_strerror "

cat >"$TEST_DIR/user.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <crawl.h>
static char *fetch(char *link)
{
  if (strcmp(link, "a") == 0)
    return strdup("start link:b link:c link:a");
  if (strcmp(link, "b") == 0)
    return strdup("link:c");
  return strdup("end");
}
static void edge(char *from, char *to) { printf("%s %s\n", from, to); }
int main(void)
{
  return crawl("a", 2, 2, 4, fetch, edge) == 0 ? 0 : 1;
}
C
cc -o "$TEST_DIR/user" "$TEST_DIR/user.c" -I"$D/opt/tse/include" \
  -L"$D/opt/tse/lib" -lcrawler -pthread 2>&2
check_eq "a program builds against the installed library" "$?" 0
LD_LIBRARY_PATH=$D/opt/tse/lib "$TEST_DIR/user" | sort >"$TEST_DIR/edges"
check_eq "and crawls through it" "$(tr '\n' ' ' <"$TEST_DIR/edges")" \
  "a a a b a c b c "
finish
