#!/usr/bin/env bash
# Secret Service read benchmark: vault read vs raw secret_password_lookupv_sync, and 1,000 sequential reads.
#   bash Benchmarks/run-secret-service.sh
# Uses the session bus when it has a Secret Service; otherwise starts a throw-away bus + unlocked
# gnome-keyring for the run (same recipe as scripts/setup/20-secret-service.sh). Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmark is a target of the Benchmarks package (Benchmarks/Package.swift), built in a folder of its own.
SCRATCH=${BV_BENCH_SCRATCH:-.build-benchmarks}
swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --product SecretServiceBenchmark 2>&1 | tail -1
BIN=$(swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --show-bin-path)/SecretServiceBenchmark

if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && gdbus introspect --session --dest org.freedesktop.secrets \
        --object-path /org/freedesktop/secrets >/dev/null 2>&1; then
    exec "$BIN"
fi
SANDBOX=$(mktemp -d)
trap 'rm -rf "$SANDBOX"' EXIT
mkdir -p "$SANDBOX/data" "$SANDBOX/run"; chmod 700 "$SANDBOX/run"
export XDG_DATA_HOME=$SANDBOX/data XDG_RUNTIME_DIR=$SANDBOX/run BIN
unset DISPLAY WAYLAND_DISPLAY
dbus-run-session -- bash -euo pipefail -c '
    printf %s bench-keyring-password | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1
    gdbus wait --session --timeout 10 org.freedesktop.secrets
    "$BIN"
'
