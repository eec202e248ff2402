#!/bin/sh
# mk/deps.sh [--build] [--check]: make sure the Debian packages the build,
# the tests and make check-format need are installed; with --build only
# what building and running need (make demo: no test-only package). As
# root it installs what is missing with apt-get; as anyone else it prints
# the exact command and fails. --check only reports.
#
# Each entry is "package:probe", the probe being a pkg-config module or a
# command that shows the package is there. DEPS_MORE adds entries (make
# deb: mk/deb-deps.txt).
set -u
BUILD_ONLY=
CHECK=
for a in "$@"; do
  case "$a" in
    --build) BUILD_ONLY=1 ;;
    --check) CHECK=1 ;;
    *) echo "deps: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
# Building and running: the libraries, and the loopback server the demo
# serves the bundled site with (libmicrohttpd).
BUILD="
pkg-config:cmd=pkg-config
libcurl4-openssl-dev:pc=libcurl
libxml2-dev:pc=libxml-2.0
zlib1g-dev:pc=zlib
libssl-dev:pc=libcrypto
libmicrohttpd-dev:pc=libmicrohttpd
libhiredis-dev:pc=hiredis
"
# The tests, and make check-format.
TEST="
curl:cmd=curl
openssl:cmd=openssl
valgrind:cmd=valgrind
nodejs:cmd=node
npm:cmd=npm
clang-format:cmd=clang-format
time:cmd=/usr/bin/time
redis-server:cmd=redis-server
nginx:cmd=/usr/sbin/nginx
groff-base:cmd=groff
man-db:cmd=man
"
NEED="$BUILD"
[ -n "$BUILD_ONLY" ] || NEED="$NEED $TEST"
NEED="$NEED ${DEPS_MORE:-}"
missing=
for entry in $NEED; do
  pkg=${entry%%:*}
  probe=${entry#*:}
  case "$probe" in
    pc=*) command -v pkg-config >/dev/null 2>&1 &&
            pkg-config --exists "${probe#pc=}" && continue ;;
    cmd=*) command -v "${probe#cmd=}" >/dev/null 2>&1 && continue ;;
  esac
  missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ -n "$CHECK" ]; then
  echo "missing packages:$missing"
  exit 1
fi
cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing packages:$missing" >&2
  echo "deps: run as root: apt-get update && $cmd" >&2
  exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && $cmd
