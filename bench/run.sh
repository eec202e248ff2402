#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: build and run the benchmarks; results on stdout.
# Speed targets live here, never in the tests.
set -euo pipefail
B=${1:?usage: run.sh BUILD_DIR}
TOP=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$TOP/bench"
echo "== engine: crawl() over an in-memory graph, 100,000 pages, 1,000,000 links"
"$B/bench/engine_bench"
