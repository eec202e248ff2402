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

# The runner's own input is not a test's: a test that reads its stdin to
# the end leaves every other test to run (one job at a time, so that the
# reader starts before the others are listed).
mkdir -p "$FB/tests/unit/stdin"
for t in a_test b_test c_test; do
  printf '#!/bin/sh\ncat >/dev/null\necho "ok - %s"\n' "$t" \
    >"$FB/tests/unit/stdin/$t"
  chmod +x "$FB/tests/unit/stdin/$t"
done
out=$(TEST_JOBS=1 bash "$TOP/tests/run.sh" "$FB" unit/stdin/ 2>&1 </dev/null)
check_eq "a test reading its stdin leaves the others to run" \
  "$(echo "$out" | tail -n 1)" "3 passed, 0 failed"

# A build directory whose path has a space.
SP="$TEST_DIR/with space"
mkdir -p "$SP/tests/unit"
cp -r "$FB/tests/unit/stdin" "$SP/tests/unit/"
out=$(bash "$TOP/tests/run.sh" "$SP" unit/stdin/ 2>&1 </dev/null)
check_eq "a build directory with a space in its path" \
  "$(echo "$out" | tail -n 1)" "3 passed, 0 failed"

# TEST_JOBS must be a count.
for j in 0 abc; do
  timeout 20 env TEST_JOBS=$j bash "$TOP/tests/run.sh" "$FB" unit/stdin/ \
    >"$TEST_DIR/jobs.out" 2>&1 </dev/null
  check_eq "TEST_JOBS=$j is refused (exit 2)" "$?" 2
done

# Two runs on one build directory at once each count all of theirs.
mkdir -p "$FB/tests/unit/slow"
for t in a_test b_test c_test d_test; do
  printf '#!/bin/sh\nsleep 1\necho "ok - %s"\n' "$t" >"$FB/tests/unit/slow/$t"
  chmod +x "$FB/tests/unit/slow/$t"
done
bash "$TOP/tests/run.sh" "$FB" unit/slow/ >"$TEST_DIR/run1" 2>&1 </dev/null &
first=$!
sleep 0.5
bash "$TOP/tests/run.sh" "$FB" unit/slow/ >"$TEST_DIR/run2" 2>&1 </dev/null
wait "$first"
check_eq "two runs at once: the first counts all of its tests" \
  "$(tail -n 1 "$TEST_DIR/run1")" "4 passed, 0 failed"
check_eq "two runs at once: the second too" \
  "$(tail -n 1 "$TEST_DIR/run2")" "4 passed, 0 failed"
finish
