#!/usr/bin/env bash
# CI: a short multi-process stress run of the file store and the Secret Service store (scripts/stress.sh):
# 4 processes x 50 operations per mode; then 1,200 cold starts, 4 at a time, with and without a system
# bus (scripts/stress-cold-start.sh): the 600 without one would each show the closed-twice socket that
# script's comment describes with a chance of about 1 in 100. VaultStress and ColdStartBenchmark are
# already built by scripts/test.sh's `swift build --build-tests` in .build (with AddressSanitizer, where a
# cold start costs more than in a plain build), so this costs only their run time. Longer runs: bash
# scripts/stress.sh 16 1000; bash scripts/stress-cold-start.sh 8 2000.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
bash scripts/stress.sh "${BV_CI_STRESS_WORKERS:-4}" "${BV_CI_STRESS_OPERATIONS:-50}"
bash scripts/stress-cold-start.sh 4 300
echo "== 60-stress took $(($(date +%s) - start))s"
