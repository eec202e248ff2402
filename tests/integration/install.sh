# install: make install into a DESTDIR installs the programs, the
# libraries with their sonames, the headers, the man pages and the
# pkg-config files, touches nothing else, and honours LIBDIR and MANDIR;
# make uninstall removes every file it put there; a program built against
# the installed header and library crawls; each library exports only its
# API.
. "$(dirname "$0")/lib.sh"
require_file "$B/lib/libcrawler.so"
require_cmd nm cc
mktemp_dir
# Install from the plain build only: sanitizer builds link their runtime.
case "$B" in */asan|*/tsan) skip_all "install is checked on the plain build" ;; esac
D=$TEST_DIR/dest
# What 0.1.0 installed and 0.2.0 does not: its <pagedir.h> would shadow
# a CS50 program's own, so an install over it removes it.
mkdir -p "$D/opt/tse/include/tse" "$D/opt/tse/share/man/man3"
: >"$D/opt/tse/include/tse/pagedir.h"
: >"$D/opt/tse/share/man/man3/pagedir.3"
ln -s pagedir.3 "$D/opt/tse/share/man/man3/pagedir_load.3"
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/opt/tse >"$TEST_DIR/make.out" 2>&1
check_eq "make install succeeds" "$?" 0
check "it removes 0.1.0's <pagedir.h> and pagedir(3) with its links" \
  test ! -e "$D/opt/tse/include/tse/pagedir.h" -a \
  ! -e "$D/opt/tse/share/man/man3/pagedir.3" -a \
  ! -L "$D/opt/tse/share/man/man3/pagedir_load.3"
INSTALLED="bin/crawler bin/robotscheck bin/tsepagedir bin/urlnorm
  lib/libcrawler.so lib/libcrawler.so.1 lib/libcrawler.so.1.0.0
  lib/libtsepagedir.so lib/libtsepagedir.so.2 lib/libtsepagedir.so.2.0.0
  lib/pkgconfig/libcrawler.pc lib/pkgconfig/libtsepagedir.pc
  include/tse/crawl.h include/tse/tsepagedir.h
  share/man/man1/crawler.1 share/man/man1/robotscheck.1
  share/man/man1/tsepagedir.1 share/man/man1/urlnorm.1
  share/man/man3/crawl.3 share/man/man3/tsepagedir.3"
for f in $INSTALLED; do
  check "installed $f" test -e "$D/opt/tse/$f"
done
# man FUNCTION: a link per function of the libraries to its page.
funcs=$(grep -oE '^TSEPAGEDIR_EXTERN [a-z ]*\*?tsepagedir_[a-z_]*' \
          "$TOP/common/tsepagedir.h" | grep -oE 'tsepagedir_[a-z_]*$')
links=
for f in crawl_strerror:crawl $(printf '%s:tsepagedir\n' $funcs); do
  l=share/man/man3/${f%%:*}.3
  check_eq "$l links to ${f#*:}.3" "$(readlink "$D/opt/tse/$l")" "${f#*:}.3"
  links="$links $l"
done
INSTALLED="$INSTALLED $links"
check_eq "nothing outside PREFIX" "$(ls "$D")" opt
check_eq "nothing else in PREFIX" \
  "$(cd "$D/opt/tse" && find . ! -type d | sed 's|^\./||' | sort)" \
  "$(printf '%s\n' $INSTALLED | sort)"
for l in libcrawler:1 libtsepagedir:2; do
  n=${l%:*} v=${l#*:}
  check "$n has its soname" \
    sh -c "objdump -p '$D/opt/tse/lib/$n.so.$v.0.0' | grep -q 'SONAME *$n.so.$v\$'"
done
exported=$(nm -D --defined-only "$D/opt/tse/lib/libcrawler.so" |
           awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
check_eq "only the API is exported" "$exported" "crawl crawl_strerror "
# libtsepagedir: exactly the functions tsepagedir.h declares, all of them
# (functions, data, anything) under its prefix, bound inside it.
exported=$(nm -D --defined-only "$D/opt/tse/lib/libtsepagedir.so" |
           awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
declared=$(grep -oE '^TSEPAGEDIR_EXTERN [a-z ]*\*?tsepagedir_[a-z_]*' \
             "$TOP/common/tsepagedir.h" | grep -oE 'tsepagedir_[a-z_]*$' |
           sort | tr '\n' ' ')
check_eq "libtsepagedir exports what tsepagedir.h declares, nothing else" \
  "$exported" "$declared"
check "tsepagedir.h declares the functions" test -n "$declared"
check_eq "libtsepagedir defines no symbol without the prefix" \
  "$(nm -D --defined-only "$D/opt/tse/lib/libtsepagedir.so" |
     awk '{ print $3 }' | grep -v '^tsepagedir_' | tr '\n' ' ')" ""
check "libtsepagedir binds its own calls (-Bsymbolic)" sh -c \
  "readelf -d '$D/opt/tse/lib/libtsepagedir.so' | grep -q SYMBOLIC"
check "<pagedir.h> is not installed" test ! -e "$D/opt/tse/include/tse/pagedir.h"
check "libtsepagedir needs zlib, not libcurl, libxml2 or libcrypto" sh -c \
  "readelf -d '$D/opt/tse/lib/libtsepagedir.so' | grep NEEDED |
   grep -q libz.so && ! readelf -d '$D/opt/tse/lib/libtsepagedir.so' |
   grep NEEDED | grep -qE 'libcurl|libxml2|libcrypto|libssl'"

make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/opt/tse \
  >"$TEST_DIR/uninstall.out" 2>&1
check_eq "make uninstall succeeds" "$?" 0
check_eq "make uninstall leaves no file behind" \
  "$(find "$D" ! -type d | wc -l)" 0

# Packagers' variables: LIBDIR (multiarch), MANDIR, BINDIR, and
# PKGCONFIGDIR following LIBDIR.
D2=$TEST_DIR/dest2
make -s -C "$TOP" install DESTDIR="$D2" PREFIX=/usr \
  LIBDIR=/usr/lib/x86_64-linux-gnu MANDIR=/usr/share/man \
  >"$TEST_DIR/make2.out" 2>&1
check_eq "make install with LIBDIR and MANDIR succeeds" "$?" 0
for f in usr/bin/crawler usr/lib/x86_64-linux-gnu/libtsepagedir.so.2 \
         usr/lib/x86_64-linux-gnu/pkgconfig/libcrawler.pc \
         usr/share/man/man1/crawler.1 usr/include/tse/tsepagedir.h; do
  check "LIBDIR/MANDIR: installed $f" test -e "$D2/$f"
done
check_eq "the .pc names LIBDIR, not DESTDIR" \
  "$(sed -n 's/^libdir=//p' "$D2/usr/lib/x86_64-linux-gnu/pkgconfig/libcrawler.pc")" \
  /usr/lib/x86_64-linux-gnu
make -s -C "$TOP" uninstall DESTDIR="$D2" PREFIX=/usr \
  LIBDIR=/usr/lib/x86_64-linux-gnu MANDIR=/usr/share/man \
  >"$TEST_DIR/uninstall2.out" 2>&1
check_eq "make uninstall with the same variables leaves no file behind" \
  "$(find "$D2" ! -type d | wc -l)" 0
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/opt/tse \
  >"$TEST_DIR/make3.out" 2>&1
check_eq "make install again succeeds" "$?" 0

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
cc -o "$TEST_DIR/user" "$TEST_DIR/user.c" -I"$D/opt/tse/include/tse" \
  -L"$D/opt/tse/lib" -lcrawler -pthread 2>&2
check_eq "a program builds against the installed library" "$?" 0
LD_LIBRARY_PATH=$D/opt/tse/lib "$TEST_DIR/user" | sort >"$TEST_DIR/edges"
check_eq "and crawls through it" "$(tr '\n' ' ' <"$TEST_DIR/edges")" \
  "a a a b a c b c "
finish
