#!/bin/sh
# mk/format.sh [--check]: run clang-format, with the root .clang-format, on
# every .c and .h git tracks under libcs50, common, engine, cluster, web,
# programs, tests and bench: in place (make format), or, with --check,
# changing nothing: list the files it would change and fail if there is one
# (make check-format).
#
# The list comes from git ls-files, so a new file or directory is covered
# once it is added. The fuzz inputs (tests/fuzz/corpus, regressions) are
# data whatever their names, and are skipped; nothing generated is tracked.
# CLANG_FORMAT picks the binary. The style is tuned for clang-format 14
# (Debian 12); another version may lay a few constructs out differently,
# so it says so.
#
# Exit status: 0 done (or all formatted); 1 --check found files to format;
# 2 clang-format missing or failing (a bad .clang-format, a parse error).
set -u
cd "$(dirname "$0")/.." || exit 2
CF=${CLANG_FORMAT:-clang-format}
check=false
[ "${1:-}" = --check ] && check=true

if ! command -v "$CF" >/dev/null 2>&1; then
  echo "format: $CF not found: make deps (as root) installs clang-format" >&2
  exit 2
fi
ver=$("$CF" --version | sed -n 's/.*version \([0-9][0-9]*\).*/\1/p')
[ "$ver" = 14 ] ||
  echo "format: $CF is version ${ver:-unknown}; .clang-format is tuned" \
    "for 14, results may differ" >&2
files=$(git ls-files -- 'libcs50/*.[ch]' 'common/*.[ch]' 'engine/*.[ch]' \
  'cluster/*.[ch]' 'web/*.[ch]' 'programs/*.[ch]' \
  'tests/*.[ch]' 'bench/*.[ch]' \
  ':(exclude)tests/fuzz/corpus' ':(exclude)tests/fuzz/regressions') || {
  echo "format: git ls-files failed: not a git work tree?" >&2
  exit 2
}

bad=0
set -f # split the list at newlines only, expand no globs
IFS='
'
for f in $files; do
  [ -f "$f" ] || continue # tracked but deleted in the work tree
  if ! $check; then
    "$CF" -i --style=file "$f" || exit 2
    continue
  fi
  out=$("$CF" --dry-run --Werror --style=file "$f" 2>&1) && continue
  case $out in
    *clang-format-violations*)
      echo "$f"
      bad=$((bad + 1)) ;;
    *)
      printf '%s\n' "$out" >&2
      exit 2 ;;
  esac
done
if [ "$bad" -gt 0 ]; then
  echo "format: $bad file(s) above not formatted: run make format" \
    "(clang-format --dry-run FILE shows where)" >&2
  exit 1
fi
exit 0
