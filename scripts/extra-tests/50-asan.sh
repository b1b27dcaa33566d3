#!/usr/bin/env bash
# CI: AddressSanitizer, with LeakSanitizer (its default on Linux), over the whole test suite.
#
# It reuses the build folder of 40-fuzz.sh (same flags, Fuzz/build-flags.sh), so swift-crypto and the
# library are compiled with ASan once for both. Nothing is excluded: every test target runs, the
# daemon-backed ones included (the daemons started by scripts/setup/ are still up), and so does every
# process the tests start from our build (the CLI): it is built with ASan too.
#
# Reports go to files (ASAN_OPTIONS log_path), because a child process's stderr is captured by the test
# that started it; any report fails this step and is printed. Known leaks of third-party code at exit are
# suppressed in Fuzz/lsan-suppressions.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../../Fuzz/build-flags.sh
source Fuzz/build-flags.sh
start=$(date +%s)
reports="$PWD/$BV_ASAN_SCRATCH/asan-reports"
rm -rf "$reports"
mkdir -p "$reports"
status=0
# SWIFT_BACKTRACE off: ASan prints its own report for a memory error instead of the Swift runtime's
# backtracer taking the signal first.
SWIFT_BACKTRACE=enable=no \
ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1:log_exe_name=1" \
LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0" \
    swift test "${BV_ASAN_FLAGS[@]}" >"$BV_ASAN_SCRATCH/asan-test.log" 2>&1 || status=$?
grep -v -E "Cannot export local symbol|prohibited flag" "$BV_ASAN_SCRATCH/asan-test.log" | grep -E "✘|error:" | head -40 || true
tail -3 "$BV_ASAN_SCRATCH/asan-test.log"
found=$(grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)" "$reports"/asan* 2>/dev/null || true)
if [ -n "$found" ]; then
    echo "!! AddressSanitizer reports (one file per process):"
    for report in $found; do echo "--- $report"; head -80 "$report"; done
    status=1
fi
echo "== 50-asan took $(($(date +%s) - start))s (exit $status)"
exit "$status"
