#!/bin/sh
# bench/hol-efficiency.sh LOG RATE BURST: how close a polite crawl came to
# the per-host bound, from the server's request log alone.
#
# LOG: one request a line, field 1 its arrival time in seconds, field 2
# ADDRESS:PORT of the host asked (tests/server/testserver's --log, and the
# bench's nginx log_format, both are). A host may get at most BURST +
# RATE * t requests in t seconds; a host is counted from its first request
# (its robots.txt) to the crawl's end, taken as the last request in the
# log (what follows it, a parse and a commit, is milliseconds). So a host
# found late is not charged for the time before it was found, and a crawl
# that keeps every host busy from its discovery to the end scores 1.
#
# Prints one line per host (in order of first request):
#   host ADDR:PORT first F last L requests N bound B longest-gap G
# (F, L relative to the log's first request, G the longest time between
# two of its requests), then one line
#   overall REQUESTS BOUND EFFICIENCY SECONDS CEILING
# EFFICIENCY = sum of requests / sum of bounds, SECONDS the crawl's span.
# CEILING is the efficiency of the fastest polite crawl making the same
# requests with the same first-request times: it ends when the busiest
# host's bound lets it (max over hosts of F + (N - BURST) / RATE), and
# hosts with fewer requests than that leaves them room for score below
# 1. The head-of-line site gives every host the same work, so its ceiling
# is near 1; the bench's polite site does not.
set -eu
LOG=${1:?usage: hol-efficiency.sh LOG RATE BURST}
RATE=${2:?usage: hol-efficiency.sh LOG RATE BURST}
BURST=${3:?usage: hol-efficiency.sh LOG RATE BURST}
sort -g -k1,1 "$LOG" | awk -v r="$RATE" -v b="$BURST" '
  NF >= 2 {
    t = $1 + 0; h = $2
    if (!(h in n)) { order[nh++] = h; first[h] = t; gap[h] = 0 }
    else if (t - last[h] > gap[h]) gap[h] = t - last[h]
    n[h]++; last[h] = t
    if (NR == 1 || t < t0) t0 = t
    if (t > end) end = t
  }
  END {
    if (nh == 0) { print "overall 0 0 0 0"; exit 1 }
    for (i = 0; i < nh; i++) {
      h = order[i]
      if (first[h] + (n[h] - b) / r > tmin) tmin = first[h] + (n[h] - b) / r
    }
    for (i = 0; i < nh; i++) {
      h = order[i]
      bound = b + r * (end - first[h])
      reqs += n[h]; sum += bound; best += b + r * (tmin - first[h])
      printf "host %s first %.3f last %.3f requests %d bound %.1f longest-gap %.3f\n",
        h, first[h] - t0, last[h] - t0, n[h], bound, gap[h]
    }
    printf "overall %d %.1f %.4f %.3f %.4f\n", reqs, sum, reqs / sum, end - t0,
      (best > 0 && reqs / best < 1) ? reqs / best : 1
  }'
