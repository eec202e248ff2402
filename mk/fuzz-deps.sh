#!/bin/sh
# mk/fuzz-deps.sh [--check]: make sure clang can build libFuzzer targets
# (clang -fsanitize=fuzzer,address,undefined), for `make fuzz`. Same policy
# as mk/deps.sh: as root, install what is missing with apt-get; as anyone
# else, print the exact command and fail. --check only reports.
#
# Debian 12: clang is clang 14; libFuzzer and the sanitizer runtimes come
# with libclang-rt-dev (libclang-rt-14-dev).
set -u
CC=${FUZZ_CC:-clang}
probe() {
  command -v "$CC" >/dev/null 2>&1 || return 1
  d=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-deps.XXXXXX") || return 1
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
    '{ (void)d; (void)n; return 0; }' >"$d/p.c"
  "$CC" -fsanitize=fuzzer,address,undefined -o "$d/p" "$d/p.c" \
    >/dev/null 2>&1
  rc=$?
  rm -rf "$d"
  return $rc
}
probe && exit 0
missing="clang libclang-rt-dev"
if [ "${1:-}" = --check ]; then
  echo "fuzz: '$CC -fsanitize=fuzzer' does not work; missing packages:" \
    "$missing"
  exit 1
fi
cmd="apt-get install -y --no-install-recommends $missing"
if [ "$(id -u)" != 0 ]; then
  echo "fuzz: '$CC -fsanitize=fuzzer' does not work" >&2
  echo "fuzz: run as root: apt-get update && $cmd" >&2
  exit 1
fi
echo "fuzz: installing $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && $cmd && probe || {
  echo "fuzz: '$CC -fsanitize=fuzzer' still does not work" >&2
  exit 1
}
