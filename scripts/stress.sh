#!/usr/bin/env bash
# Multi-process stress of the stores: N worker processes x M operations at once against ONE store, on
# the same key and on different keys (Stress/VaultStress/main.swift says what each mode checks).
#
#   bash scripts/stress.sh                     # 8 workers x 200 operations, every store
#   bash scripts/stress.sh 16 1000             # heavier
#   bash scripts/stress.sh 8 200 file          # one store: file | secret-service
#
# The Secret Service run needs a provider on the session bus (DBUS_SESSION_BUS_ADDRESS, as
# scripts/setup/20-secret-service.sh provides); without one it is skipped, or fails when
# BV_REQUIRE_DAEMONS=1. Exit status 0: every worker and every end-state check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
workers="${1:-8}"
operations="${2:-200}"
shift 2 || shift $# || true
stores=("${@:-file secret-service}")
read -r -a stores <<< "${stores[*]}"
scratch="${BV_STRESS_SCRATCH:-.build}"

mkdir -p "$scratch"
# shellcheck source=lib/test-build-flags.sh
source scripts/lib/test-build-flags.sh
if ! swift build --scratch-path "$scratch" --product VaultStress "${BV_TEST_BUILD_FLAGS[@]}" >"$scratch/stress-build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$scratch/stress-build.log" | tail -30 >&2
    exit 1
fi
bin="$scratch/debug/VaultStress"

work_dir=$(mktemp -d "${TMPDIR:-/tmp}/bv-stress.XXXXXX")
trap 'rm -rf "$work_dir"' EXIT
failed=0
results=()

run_mode() { # store mode
    local store="$1" mode="$2" service="bv-stress-$$-$2" dir="-" pids=() worker status=0 count="$operations"
    [ "$store" = file ] && dir="$work_dir/$mode-store"
    # transitions: rounds of about 8 vault operations per worker each (see Stress/VaultStress/main.swift).
    [ "$mode" = transitions ] && count=$(( operations / 4 > 2 ? operations / 4 : 2 ))
    export BV_STRESS_SYNC="$work_dir/sync-$store-$mode" BV_STRESS_WORKERS="$workers"
    mkdir -p "$BV_STRESS_SYNC"
    local start=$(date +%s%N)
    for ((worker = 0; worker < workers; worker++)); do
        "$bin" "$store" work "$mode" "$dir" "$service" "$worker" "$count" >"$work_dir/$store-$mode-$worker.log" 2>&1 &
        pids+=($!)
    done
    for ((worker = 0; worker < workers; worker++)); do
        if ! wait "${pids[$worker]}"; then
            status=1
            echo "!! $store/$mode worker $worker failed:" >&2
            tail -5 "$work_dir/$store-$mode-$worker.log" >&2
        fi
    done
    local verdict
    if ! verdict=$("$bin" "$store" verify "$mode" "$dir" "$service" "$workers" "$count" 2>&1); then
        status=1
        echo "!! $store/$mode end state: $verdict" >&2
    fi
    local millis=$((($(date +%s%N) - start) / 1000000))
    [ "$status" -eq 0 ] || failed=1
    results+=("$(printf '%-15s %-11s %3d x %-5d %7d ms  %s' "$store" "$mode" "$workers" "$count" "$millis" \
        "$([ "$status" -eq 0 ] && echo "ok: $verdict" || echo FAILED)")")
}

for store in "${stores[@]}"; do
    case "$store" in
    file)
        for mode in same-key own-key counter transitions; do run_mode file "$mode"; done
        ;;
    secret-service)
        if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
            if [ "${BV_REQUIRE_DAEMONS:-}" = 1 ]; then
                echo "!! no session bus (DBUS_SESSION_BUS_ADDRESS) for the Secret Service stress run" >&2
                failed=1
            else
                results+=("secret-service  skipped: no session bus (run scripts/setup/20-secret-service.sh)")
            fi
            continue
        fi
        for mode in same-key own-key transitions; do run_mode secret-service "$mode"; done
        ;;
    *) echo "unknown store $store" >&2; exit 2 ;;
    esac
done

printf '%s\n' "${results[@]}"
exit "$failed"
