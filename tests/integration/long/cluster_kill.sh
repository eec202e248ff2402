# cluster_kill: kill -9 loops. Workers of one crawl are killed at random
# moments, one at a time, and others started in their place; once the
# killing stops, the last ones finish the crawl. The directory equals
# one process's byte for byte (no page saved twice, no ID skipped), no
# temporary file is left, and every host got at most 1 + R requests a
# second across the workers. CLUSTER_KILL_SEED=N repeats a run's choices
# (each run prints its seed on stderr).
. "$(dirname "$0")/../lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd redis-server redis-cli
mktemp_dir
redis_start || { not_ok "redis-server starts"; finish; }
cluster_site || { not_ok "server starts"; finish; }
KILL=("${CRAWL[@]}" --lease-timeout 2)
mkdir "$TEST_DIR/ref"
"$BIN/crawler" --quiet "${CRAWL[@]}" "$SEED" "$TEST_DIR/ref" 2

SEED_RANDOM=${CLUSTER_KILL_SEED:-$$}
echo "# cluster_kill: CLUSTER_KILL_SEED=$SEED_RANDOM" >&2

# worker NAME N: worker N of crawl NAME, in the background; its
# timeout's pid in PIDS[N]; stderr in $TEST_DIR/NAME.N.err.
declare -A PIDS
worker() {
  timeout -k 5 120 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
    --crawl-name "$1" "${KILL[@]}" "$SEED" "$TEST_DIR/$1" 2 \
    2>"$TEST_DIR/$1.$2.err" &
  PIDS[$2]=$!
}

# run NAME KILLS WORKERS: WORKERS workers at first; KILLS times, after
# 0.3 to 1.2 s, one of those running killed (-9) and another started.
# Prints how many were killed, then the exit codes of the others.
run() {
  local name=$1 kills=$2 n=$3 i k d victim alive codes=() killed=0
  mkdir "$TEST_DIR/$name"
  for i in $(seq "$n"); do worker "$name" "$i"; done
  for k in $(seq "$kills"); do
    d=$RANDOM # here: a $(...) would draw from a RANDOM seeded afresh
    sleep "$(awk -v r="$d" 'BEGIN { printf "%.2f", 0.3 + 0.9 * r / 32767 }')"
    alive=()
    for i in "${!PIDS[@]}"; do
      kill -0 "${PIDS[$i]}" 2>/dev/null && alive+=("$i")
    done
    [ "${#alive[@]}" -gt 0 ] || break # the crawl ended
    victim=${alive[$((RANDOM % ${#alive[@]}))]}
    kill -9 "$(timed_child "${PIDS[$victim]}")" 2>/dev/null
    wait "${PIDS[$victim]}" 2>/dev/null
    # 137: killed, not ended by itself before (128 + SIGKILL, which
    # timeout passes on).
    [ $? = 137 ] && killed=$((killed + 1))
    unset "PIDS[$victim]"
    worker "$name" "$((n + k))"
  done
  for i in "${!PIDS[@]}"; do
    wait "${PIDS[$i]}"
    codes+=("$?")
  done
  echo "$killed ${codes[*]}"
}

for r in 1 2 3; do
  : >"$SERVER_LOG"
  PIDS=()
  # Seeded in the subshell: bash seeds RANDOM afresh in each.
  out=$(RANDOM=$((SEED_RANDOM + r)) && run "loop$r" 5 2)
  killed=${out%% *}
  codes=${out#* }
  check "run $r: workers killed mid-crawl ($killed of 5)" test "$killed" -ge 3
  check "run $r: the workers left exit 0 ($codes)" \
    test -z "$(echo "$codes" | tr -d ' 0')"
  check "run $r: the directory equals one process's byte for byte" \
    diff -r "$TEST_DIR/ref" "$TEST_DIR/loop$r"
  check_eq "run $r: no temporary file is left" \
    "$(ls -A "$TEST_DIR/loop$r" | grep -c '^\.tmp-')" 0
  for h in $HOSTS; do
    check "run $r: $h got at most 1 + $R/s across the workers" \
      window_ok "$SERVER_LOG" "$h" $R 1
  done
done
server_stop
finish
