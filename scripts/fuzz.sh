#!/usr/bin/env bash
# Runs every libFuzzer target (Fuzz/README.md) for a bounded time each, with AddressSanitizer.
#
#   bash scripts/fuzz.sh                 # 60 s per target
#   bash scripts/fuzz.sh 600             # 10 min per target
#   bash scripts/fuzz.sh 60 FuzzEnvelope # one target
#
# Seeds come from Fuzz/corpus/<target>/ (committed); new inputs libFuzzer finds go to
# .build-asan/fuzz-corpus/<target>/ (not committed; kept between runs). A crashing input is written to
# fuzz-artifacts/<target>/ and the script exits non-zero. The targets run side by side, one per CPU. The
# last lines are a table of executions and crashes per target.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../Fuzz/build-flags.sh
source Fuzz/build-flags.sh

seconds="${1:-60}"
shift || true
all_targets=(
    FuzzEnvelope FuzzItemHeader FuzzFileStoreFormat FuzzJSONValue FuzzGitCredentialRequest FuzzDockerCredentialRequest
    FuzzAgentFrame FuzzProcessStat FuzzConfigFile FuzzSecretServiceReply FuzzVaultServiceRequest FuzzProviderRecord
    FuzzSSHAgentMessage
)
targets=("${@:-${all_targets[@]}}")

binary_for() {
    local target="$1"
    swift build "${BV_ASAN_FLAGS[@]}" --product "$target" > "$BV_ASAN_SCRATCH/fuzz-build-$target.log" 2>&1 || {
        grep -v "Cannot export local symbol" "$BV_ASAN_SCRATCH/fuzz-build-$target.log" | tail -40 >&2
        return 1
    }
    echo "$BV_ASAN_SCRATCH/debug/$target"
}

# Every target is built first (one after the other: they share the build folder), then they fuzz side by
# side, as many at a time as there are CPUs: libFuzzer runs one process on one CPU.
binaries=()
for target in "${targets[@]}"; do
    echo "== fuzz: building $target" >&2
    start=$(date +%s)
    mkdir -p "$BV_ASAN_SCRATCH"
    if ! binary=$(binary_for "$target"); then
        echo "!! $target did not build" >&2
        exit 1
    fi
    echo "== fuzz: built $target in $(($(date +%s) - start))s" >&2
    binaries+=("$binary")
done

# Runs one target; its exit status is libFuzzer's (non-zero: a crash, a leak or a violated invariant).
fuzz_one() { # target binary
    local target=$1 binary=$2
    local corpus="$BV_ASAN_SCRATCH/fuzz-corpus/$target" artifacts="fuzz-artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    # SWIFT_BACKTRACE off: the Swift runtime's own crash handler would otherwise take the signal before
    # libFuzzer saves the crashing input. Leak detection stays on (ASan's default on Linux); a report goes
    # to the target's log, not to where scripts/test.sh's ASAN_OPTIONS send the other processes' reports.
    env -u ASAN_OPTIONS -u LSAN_OPTIONS SWIFT_BACKTRACE=enable=no "$binary" "$corpus" "Fuzz/corpus/$target" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$artifacts/" >"$BV_ASAN_SCRATCH/fuzz-$target.log" 2>&1
}

parallel=$(nproc)
pids=()
statuses=()
for index in "${!targets[@]}"; do
    # At most $parallel at once: wait for the oldest still running.
    if [ "$index" -ge "$parallel" ]; then
        oldest=$((index - parallel))
        statuses[oldest]=0
        wait "${pids[$oldest]}" || statuses[oldest]=$?
    fi
    echo "== fuzz: running ${targets[$index]} for ${seconds}s" >&2
    fuzz_one "${targets[$index]}" "${binaries[$index]}" &
    pids+=("$!")
done

summary=()
failed=0
for index in "${!targets[@]}"; do
    target=${targets[$index]}
    if [ -n "${statuses[$index]:-}" ]; then
        status=${statuses[$index]}
    else
        status=0
        wait "${pids[$index]}" || status=$?
    fi
    log="$BV_ASAN_SCRATCH/fuzz-$target.log"
    corpus="$BV_ASAN_SCRATCH/fuzz-corpus/$target"
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=0
    if [ "$status" -ne 0 ]; then
        crashes=1
        failed=1
        echo "!! $target failed (exit $status); last lines of $log:" >&2
        tail -40 "$log" >&2
    fi
    summary+=("$(printf '%-22s %8ss %14s %8s %8s' "$target" "$seconds" "${executions:-?}" "$crashes" "$(ls "$corpus" | wc -l)")")
done

printf '%-22s %9s %14s %8s %8s\n' target time executions crashes corpus
printf '%s\n' "${summary[@]}"
exit "$failed"
