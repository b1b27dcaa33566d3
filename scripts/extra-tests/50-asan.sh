#!/usr/bin/env bash
# CI: AddressSanitizer, with LeakSanitizer (its default on Linux), over the whole test suite.
#
# It reuses the build folder of 40-fuzz.sh (same flags, Fuzz/build-flags.sh), so swift-crypto and the
# library are compiled with ASan once for both. Every test target runs, the daemon-backed ones included
# (the daemons started by scripts/setup/ are still up), and so does every process the tests start from
# our build (the CLI): it is built with ASan too. One suite is left to the plain run: GTypeRaceTests, a
# sweep of 976 driver processes looking for a deadlock inside GLib, which is not instrumented; the Swift
# code each attempt runs (connect, fail) is run under ASan by the D-Bus layer's own tests.
#
# The test bundle runs as two processes at once, the CLI's suites in one and the rest in the other. Most
# tests wait on child processes or daemons while holding one of the few threads a test process runs
# tests on; two processes keep twice as many tests going, on the same CPUs. They share no serialized
# suite (the fingerprint reader's tests are all in the second). The bundle is started directly because
# `swift test` holds the build folder's lock while it runs.
#
# Reports go to files (ASAN_OPTIONS log_path, named by executable and pid), because a child process's
# stderr is captured by the test that started it; any report fails this step and is printed. Known leaks
# of third-party code at exit are suppressed in Fuzz/lsan-suppressions.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../../Fuzz/build-flags.sh
source Fuzz/build-flags.sh
start=$(date +%s)
reports="$PWD/$BV_ASAN_SCRATCH/asan-reports"
rm -rf "$reports"
mkdir -p "$reports"
if ! swift build --build-tests "${BV_ASAN_FLAGS[@]}" >"$BV_ASAN_SCRATCH/asan-build.log" 2>&1; then
    grep -E "error:" "$BV_ASAN_SCRATCH/asan-build.log" | head -40 || true
    tail -20 "$BV_ASAN_SCRATCH/asan-build.log"
    exit 1
fi
echo "== 50-asan: built in $(($(date +%s) - start))s"
bundle="$(swift build "${BV_ASAN_FLAGS[@]}" --show-bin-path)/BiometricsVaultPackageTests.xctest"

# SWIFT_BACKTRACE off: ASan prints its own report for a memory error instead of the Swift runtime's
# backtracer taking the signal first.
run_part() { # log, then the bundle's Swift Testing arguments
    local log=$1
    shift
    SWIFT_BACKTRACE=enable=no \
    ASAN_OPTIONS="log_path=$reports/asan:log_exe_name=1:detect_leaks=1" \
    LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0" \
        "$bundle" --testing-library swift-testing "$@" >"$log" 2>&1
}
cli_log="$BV_ASAN_SCRATCH/asan-test-cli.log"
rest_log="$BV_ASAN_SCRATCH/asan-test-rest.log"
run_part "$cli_log" --filter 'BiometricsVaultCLITests' &
cli=$!
run_part "$rest_log" --skip 'BiometricsVaultCLITests|GTypeRaceTests' &
rest=$!
status=0
wait "$cli" || status=$?
wait "$rest" || status=$?
for log in "$cli_log" "$rest_log"; do
    grep -E "✘|error:" "$log" | head -40 || true
    tail -n 1 "$log"
done
found=$(grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)" "$reports"/asan* 2>/dev/null || true)
if [ -n "$found" ]; then
    echo "!! AddressSanitizer reports (one file per process):"
    for report in $found; do echo "--- $report"; head -80 "$report"; done
    status=1
fi
echo "== 50-asan took $(($(date +%s) - start))s (exit $status)"
exit "$status"
