#!/usr/bin/env bash
# The README's test command: sets up everything on a fresh Debian machine and runs every test.
#   bash scripts/test.sh
# With BV_REQUIRE_DAEMONS=1 (as in CI) a test that needs a daemon fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
export BV_ENV_FILE="${BV_ENV_FILE:-$PWD/.build-ci/env}"
mkdir -p "$(dirname "$BV_ENV_FILE")"
: > "$BV_ENV_FILE"
mkdir -p .build-ci

run_start=$SECONDS
# The CPU time all of the machine's CPUs spent busy (not idle, not waiting for I/O), in seconds: what a
# step's wall time can be cut to depends on it, since the steps already overlap.
busy_cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print int(($2 + $3 + $4 + $7 + $8 + $9) / hz); exit}' /proc/stat; }
cpu_start=$(busy_cpu_seconds)
took() {
    echo "== $1 took $((SECONDS - $2))s (at $((SECONDS - run_start))s; $(($(busy_cpu_seconds) - cpu_start)) CPU-s busy since the start, on $(nproc) CPUs)"
}

# The run's temporary files go to a directory of their own, removed at the end with everything in it:
# SwiftPM leaves its TemporaryDirectory.* and lock files in $TMPDIR at every build (about 100 a run), and
# nothing a test forgot can outlive the run. Sticky and world-writable like /tmp: the test users write
# there too, and the file store accepts such a parent as it accepts /tmp.
RUN_TMP=$(mktemp -d /tmp/bv-run.XXXXXX)
chmod 1777 "$RUN_TMP"
export TMPDIR=$RUN_TMP
# One `apt-get update` for the whole run (scripts/lib/apt.sh).
export BV_APT_UPDATED=$RUN_TMP/apt-updated

# One build serves the whole run: AddressSanitizer (with LeakSanitizer) and libFuzzer's coverage
# instrumentation (scripts/lib/test-build-flags.sh). The whole suite, the fuzz targets, the steps that run
# tests as other users and the stress workers all run from it, and so does every process they start from
# our build (the CLI). Reports go to files, named by executable and pid (a child's stderr is captured by
# the test that started it); any report fails the run at the end. Known leaks of third-party code at exit
# are suppressed in Fuzz/lsan-suppressions.txt. The Swift runtime's backtracer is off so that ASan reports
# a memory error itself.
export BV_TEST_SANITIZER=address BV_ASAN_SCRATCH=.build
ASAN_REPORTS=$RUN_TMP/asan-reports
mkdir -m 1777 "$ASAN_REPORTS"
export ASAN_OPTIONS="log_path=$ASAN_REPORTS/asan:log_exe_name=1:detect_leaks=1"
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan-suppressions.txt:print_suppressions=0"
export SWIFT_BACKTRACE=enable=no

# Background builds still running are stopped (each runs in a session of its own: its process group
# holds the compilers it started); the session bus, keyring and software TPMs the setup
# scripts start for this run are stopped at the end, and their directories in /tmp (a keyring holding
# test credentials) removed.
background=()
asan_reports() { grep -l -E "ERROR: (AddressSanitizer|LeakSanitizer)" "$ASAN_REPORTS"/asan* 2>/dev/null || true; }
stop_run() {
    for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null; done
    local report
    for report in $(asan_reports); do echo "!! AddressSanitizer report: $report"; head -80 "$report"; done
    bash scripts/stop-daemons.sh
    rm -rf "$RUN_TMP"
}
# shellcheck source=lib/at-exit.sh
source scripts/lib/at-exit.sh
run_at_exit stop_run

step=$SECONDS
bash scripts/install-deps.sh
took "install-deps" "$step"

# The debug build needs only what install-deps.sh installed, so it runs while the setup scripts below
# install and start the daemons (mostly waiting on apt, the network and the daemons themselves).
build_start=$SECONDS
# Resolved once, before two builds read Package.resolved at the same time.
swift package resolve >/dev/null
# shellcheck source=lib/test-build-flags.sh
source scripts/lib/test-build-flags.sh
setsid swift build --build-tests "${BV_TEST_BUILD_FLAGS[@]}" > .build-ci/build.log 2>&1 &
build_pid=$!
background+=("$build_pid")

# The .deb's release build (scripts/extra-tests/70-deb.sh) at the lowest priority, from the start: it
# takes the CPU the other steps leave idle (serial phases of the debug build, waits on apt, daemons and
# processes, single-threaded fuzzing). When 70-deb.sh builds the same way, SwiftPM waits for this
# build's lock and finds the work done. The kernel shares the CPU between sessions first (autogroups), so the
# session's own priority is lowered too: `nice` alone would still take half of it.
setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec nice -n 19 bash scripts/package-deb.sh' \
    > .build-ci/release-prebuild.log 2>&1 &
background+=("$!")

# Each setup script installs and starts one real component and appends the variables the tests need
# (bus addresses, socket paths, ...) to $BV_ENV_FILE.
for setup in scripts/setup/*.sh; do
    [ -e "$setup" ] || continue
    echo "== setup: $setup"
    step=$SECONDS
    bash "$setup"
    took "$setup" "$step"
done
set -a
# shellcheck disable=SC1090
source "$BV_ENV_FILE"
set +a
# shellcheck source=lib/vault-service.sh
source scripts/lib/vault-service.sh
vault_service_remove_leftover

if ! wait "$build_pid"; then
    grep -E "error:" .build-ci/build.log | head -40 || true
    tail -20 .build-ci/build.log
    exit 1
fi
# gold warns "Cannot export local symbol" for the ASan runtime's own symbols (`__asan_report_load1_asm`
# and the like) in every binary of an ASan build: they are the runtime's, not the code's.
grep -E "warning:|Build complete" .build-ci/build.log | grep -v "Cannot export local symbol" || true
if grep "warning:" .build-ci/build.log | grep -qv "Cannot export local symbol"; then
    echo "!! the build printed the warnings above: it must print none"
    exit 1
fi
took "swift build --build-tests" "$build_start"

# Extra runs (sanitizers, tests as a non-root user, fuzzing) before the final full run, so the last
# line printed is the test summary of the whole suite.
#
# The ThreadSanitizer, by-URL app and Apple-stub steps are compilations (in build folders of their own)
# that need no daemon; the steps after them up to the fuzzing mostly wait (on fprintd's virtual reader,
# PAM, child processes). So the compilations run in the background while those steps run, and are
# collected, their output printed and their status checked, before the fuzzing step, which needs both CPUs.
overlapped=(scripts/extra-tests/10-tsan.sh scripts/extra-tests/15-app-by-url.sh scripts/extra-tests/20-apple-stubs.sh)
collect_before=scripts/extra-tests/40-fuzz.sh
overlap_log=.build-ci/extra-overlapped.log
overlap_start=$SECONDS
setsid bash -c 'for extra; do
        echo "== extra (beside the next steps): $extra"
        step=$SECONDS
        bash "$extra" || { echo "!! $extra failed"; exit 1; }
        echo "== $extra took $((SECONDS - step))s"
    done' overlapped "${overlapped[@]}" > "$overlap_log" 2>&1 &
overlap_pid=$!
background+=("$overlap_pid")
collect_overlapped() {
    [ -n "$overlap_pid" ] || return 0
    local status=0
    wait "$overlap_pid" || status=$?
    overlap_pid=""
    cat "$overlap_log"
    took "the overlapped steps (${overlapped[*]})" "$overlap_start"
    [ "$status" -eq 0 ] || exit 1
}
for extra in scripts/extra-tests/*.sh; do
    [ -e "$extra" ] || continue
    [[ " ${overlapped[*]} " == *" $extra "* ]] && continue
    [[ "$extra" < "$collect_before" ]] || collect_overlapped
    echo "== extra: $extra"
    step=$SECONDS
    bash "$extra"
    took "$extra" "$step"
done
collect_overlapped

step=$SECONDS
test_status=0
swift test "${BV_TEST_BUILD_FLAGS[@]}" 2>&1 | tee .build-ci/swift-test.log || test_status=$?
echo "== swift test took $((SECONDS - step))s; the whole run $((SECONDS - run_start))s, $(($(busy_cpu_seconds) - cpu_start)) CPU-s busy on $(nproc) CPUs" > .build-ci/timing.txt
# A sanitizer report of any process of the run fails it (stop_run prints them), so that the summary
# above stays the last line when there is none.
[ -z "$(asan_reports)" ] || exit 1
[ "$test_status" -eq 0 ] || exit "$test_status"

# Where the daemons are mandatory (CI), every test runs: the only skips allowed are of tests that an
# extra step above runs instead, whose reason names that script (the fingerprint CLI suite, the
# non-root permission test). Printed only when it fails, so the summary above stays the last line.
if [ "${BV_REQUIRE_DAEMONS:-0}" = 1 ]; then
    unexpected=$(sed 's/\x1b\[[0-9;]*m//g' .build-ci/swift-test.log | grep ' skipped' | grep -v 'scripts/extra-tests/' || true)
    if [ -n "$unexpected" ]; then
        echo "tests skipped in a run where every test must run:"
        echo "$unexpected"
        exit 1
    fi
fi
