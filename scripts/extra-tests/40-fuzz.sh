#!/usr/bin/env bash
# CI: every libFuzzer target for a bounded time with AddressSanitizer; any crash or violated invariant
# fails the run (the crashing input is in fuzz-artifacts/<target>/). 20 s per target, two at a time on
# two CPUs: thirteen targets keep the fuzzing itself at about 140 s. Under scripts/test.sh the targets are
# already built: its one build has their flags (Fuzz/build-flags.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
bash scripts/fuzz.sh "${BV_CI_FUZZ_SECONDS:-20}"
echo "== 40-fuzz took $(($(date +%s) - start))s"
