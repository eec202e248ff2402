# links_differential: the links the crawler takes from a page are the
# ones a browser sees. Every page of tests/fixtures/links/ (one per case
# of issue 18 and more) and every HTML page of the bundled sites is read
# by links_dump (links_scan_html() and the url module, as page_scan()
# does) and by tests/differential/links_ref.js (parse5 with whatwg-url,
# from the npm registry, installed once per build tree); the two lists of
# normalised URLs must be identical, page by page, in order. Where the
# doc corpora of bench/run.sh are installed, their pages are compared
# too. DESIGN.md ("Link extraction") lists the accepted differences; the
# one this test can tell apart is accepted, and said so on its line: the
# standard's tree holds a clone of an unclosed <a> after misnested markup,
# so the browser's list repeats a URL the page already links, and the two
# lists are equal once repeats are dropped.
. "$(dirname "$0")/lib.sh"
DUMP=$TESTS_BIN/tools/links_dump
require_file "$DUMP"
require_cmd npm node python3
mktemp_dir
# Pinned: a new parse5 may follow a newer HTML standard; change on purpose.
NPM=$B/npm
npm_install parse5@7.3.0 whatwg-url@14.2.0 html-encoding-sniffer@4.0.0 ||
  skip_all "cannot install parse5 and whatwg-url from the npm registry"
REF=$TOP/tests/differential/links_ref.js
FIX=$TOP/tests/fixtures/links

# compare NAME LIST: run both sides over LIST, one check per page.
compare() {
  local name=$1 list=$2
  "$DUMP" "$list" >"$TEST_DIR/$name.ours" 2>"$TEST_DIR/$name.ours.err" ||
    { not_ok "$name: links_dump fails: $(tail -n 1 "$TEST_DIR/$name.ours.err")"; return; }
  NODE_PATH=$NPM/node_modules node "$REF" "$list" 2>"$TEST_DIR/$name.ref.err" |
    "$DUMP" -n >"$TEST_DIR/$name.ref" ||
    { not_ok "$name: the reference fails: $(tail -n 3 "$TEST_DIR/$name.ref.err")"; return; }
  python3 - "$TEST_DIR/$name.ours" "$TEST_DIR/$name.ref" "$name" <<'PY'
import sys
def pages(path):
    out, cur = {}, None
    order = []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("== "):
            cur = line[3:]
            out[cur] = []
            order.append(cur)
        else:
            out[cur].append(line)
    return out, order
ours, order = pages(sys.argv[1])
ref, _ = pages(sys.argv[2])
name = sys.argv[3]
bad = 0
for page in order:
    a, b = ours[page], ref.get(page)
    short = page.split("/fixtures/")[-1]
    if a == b:
        print(f"ok - {name}: {short} ({len(a)} links)")
        continue
    def firsts(xs):
        seen = set()
        return [x for x in xs if not (x in seen or seen.add(x))]
    if b is not None and len(b) > len(a) and firsts(a) == firsts(b) and \
            firsts(a) == a:
        print(f"ok - {name}: {short} ({len(a)} links; accepted: the browser "
              f"repeats {len(b) - len(a)} of them, <a> clones, DESIGN.md)")
        continue
    bad += 1
    print(f"not ok - {name}: {short} differs", flush=True)
    sys.stderr.write(f"--- {short}\n  ours:    {a}\n  browser: {b}\n")
if len(order) != len(ref):
    print(f"not ok - {name}: the reference saw {len(ref)} pages, we {len(order)}")
PY
}

# The corpus: URL http://127.0.0.1/links/NAME.html, HTTP charset from
# NAME.charset if there is one.
for f in "$FIX"/*.html; do
  cs=
  [ -f "${f%.html}.charset" ] && cs=$(cat "${f%.html}.charset")
  printf 'http://127.0.0.1/links/%s\t%s\t%s\n' "$(basename "$f")" "$f" "$cs"
done >"$TEST_DIR/corpus.list"
compare corpus "$TEST_DIR/corpus.list"

# The bundled sites, {{port}} made 8080 as the test server would.
mkdir -p "$TEST_DIR/sites"
cp -r "$SITES"/. "$TEST_DIR/sites/"
find "$TEST_DIR/sites" -name '*.html' -path '*/expected/*' -prune -o \
  -name '*.html' -print | sort | while read -r f; do
  sed -i 's/{{port}}/8080/g' "$f"
  rel=${f#"$TEST_DIR"/sites/}
  printf 'http://127.0.0.1:8080/%s\t%s\t\n' "${rel#*/}" "$f"
done >"$TEST_DIR/sites.list"
compare sites "$TEST_DIR/sites.list"

# The doc corpora, where installed (bench/run.sh installs them).
for d in /usr/share/doc/python3.11/html /usr/share/doc/postgresql-doc-15/html; do
  if [ ! -d "$d" ]; then
    skip "docs $d" "not installed (apt-get install python3.11-doc postgresql-doc-15)"
    continue
  fi
  find "$d" -name '*.html' | sort | while read -r f; do
    printf 'http://127.0.0.10/doc%s\t%s\t\n' "${f#"$d"}" "$f"
  done >"$TEST_DIR/doc.list"
  compare "docs $(basename "$(dirname "$d")")" "$TEST_DIR/doc.list"
done
finish
