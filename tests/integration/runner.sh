# runner: tests/run.sh and lib.sh count what they say they count: a check
# that was skipped ("ok - ... # SKIP reason", TAP's directive, which
# lib.sh's skip writes) is counted as skipped, not as passed; a whole
# script that exits 77 is one skip; a failure is a failure.
. "$(dirname "$0")/lib.sh"
mktemp_dir
FB=$TEST_DIR/build
mkdir -p "$FB/tests/unit/fake"

# fake_test: a "unit binary" that is a lib.sh script: two passes, one skip
# through lib.sh, and one skip written by hand in lower case (TAP's
# directive is case-blind).
cat >"$FB/tests/unit/fake/fake_test" <<'SCRIPT'
#!/usr/bin/env bash
TAP_NAME=fake
. "$TOP/tests/integration/lib.sh"
ok "one"
skip "two" "nothing to run it on"
echo "ok - fake: three # skip written by hand"
check "four" true
finish
SCRIPT
chmod +x "$FB/tests/unit/fake/fake_test"
out=$(bash "$TOP/tests/run.sh" "$FB" unit/fake/fake_test 2>&1)
echo "$out" >&2
check_eq "a skipped check is counted as skipped, not passed" \
  "$(echo "$out" | tail -n 1)" "2 passed, 0 failed, 2 skipped"
check "lib.sh's skip writes TAP's SKIP directive with the reason" \
  grep -qx 'ok - fake: two # SKIP nothing to run it on' <<<"$out"

# A script that skips everything (exit 77), and one that fails a check.
cat >"$FB/tests/unit/fake/all_test" <<'SCRIPT'
#!/usr/bin/env bash
TAP_NAME=all
. "$TOP/tests/integration/lib.sh"
skip_all "no such thing here"
SCRIPT
cat >"$FB/tests/unit/fake/bad_test" <<'SCRIPT'
#!/usr/bin/env bash
TAP_NAME=bad
. "$TOP/tests/integration/lib.sh"
skip "one" "later"
check_eq "two" a b
finish
SCRIPT
chmod +x "$FB/tests/unit/fake/all_test" "$FB/tests/unit/fake/bad_test"
out=$(bash "$TOP/tests/run.sh" "$FB" unit/fake/all_test 2>&1)
check_eq "a script exiting 77 is one skip" "$(echo "$out" | tail -n 1)" \
  "0 passed, 0 failed, 1 skipped"
out=$(bash "$TOP/tests/run.sh" "$FB" unit/fake/bad_test 2>&1)
check_eq "a failed check still fails beside a skipped one" \
  "$(echo "$out" | tail -n 1)" "0 passed, 1 failed, 1 skipped"
finish
