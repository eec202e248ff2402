#!/bin/sh
# mk/deb.sh OUT: build the Debian packages (debian/) into OUT, then run
# lintian on them and keep its report in OUT/lintian.txt (make deb).
#
# dpkg-buildpackage builds in the source tree (debian/tmp, debian/PKG,
# build/) and writes the packages to the tree's parent, so it runs on a
# copy of the tracked files, in a temporary directory removed at the
# end: the work tree gets nothing but OUT. The copy is what git would
# commit (tracked and new files, as in the work tree, none it ignores),
# so build/ never goes in. Binary packages only (-b):
# the source is this repository. Unsigned (-us -uc).
#
# Exit status: 0, or that of the first step that failed. lintian's
# findings do not fail the build; make deb-test checks them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: deb.sh OUT}
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tse-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$tmp/tse-crawler-$ver
mkdir "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -C "$top" ls-files -z --cached --others --exclude-standard | (cd "$top" && xargs -0 tar -cf - --) |
    tar -C "$src" -xf -
else
  tar -C "$top" --exclude=./build --exclude=./.git -cf - . |
    tar -C "$src" -xf -
fi
echo "deb: building tse-crawler $ver in $src"
(cd "$src" && dpkg-buildpackage -b -us -uc) >"$tmp/build.log" 2>&1 || {
  tail -n 40 "$tmp/build.log" >&2
  echo "deb: dpkg-buildpackage failed (log above)" >&2
  exit 1
}
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/lintian.txt
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/
cp "$tmp/build.log" "$out/build.log"
ls "$out"/*.deb
lintian --info --display-info "$out"/*.changes >"$out/lintian.txt" 2>&1 || true
echo "deb: lintian says (also in $out/lintian.txt):"
cat "$out/lintian.txt"
