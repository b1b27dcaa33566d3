#!/usr/bin/env bash
# `biometrics-vault list` on 10,000 Secret Service items vs `secret-tool search --all` on the same keyring
# (goal: within 2x; Docs/Benchmarks.md).
#   bash Benchmarks/run-secret-service-list.sh            # release CLI, built here
#   BV_CLI_BINARY=path/to/biometrics-vault bash Benchmarks/run-secret-service-list.sh
# Starts a throw-away bus + unlocked gnome-keyring (the recipe of scripts/setup/20-secret-service.sh),
# fills it with ITEMS plain vault items through python secretstorage (BV_PYTHON_KEYRING, or the venv
# scripts/setup/20-secret-service.sh makes), then times RUNS runs of each command and prints the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${ITEMS:-10000}
RUNS=${RUNS:-5}
SCRATCH=${BV_SCRATCH:-.build-bench}
if [ -z "${BV_CLI_BINARY:-}" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product biometrics-vault 2>&1 | tail -1
    BV_CLI_BINARY=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/biometrics-vault
fi
PYTHON=${BV_PYTHON_KEYRING:-$PWD/.build-ci/secret-service/keyring-venv/bin/python}
"$PYTHON" -c 'import secretstorage' || { echo "needs python secretstorage: run scripts/setup/20-secret-service.sh" >&2; exit 1; }

SANDBOX=$(mktemp -d)
mkdir -p "$SANDBOX/data" "$SANDBOX/run"; chmod 700 "$SANDBOX/run"
export XDG_DATA_HOME=$SANDBOX/data XDG_RUNTIME_DIR=$SANDBOX/run
unset DISPLAY WAYLAND_DISPLAY
read -r DBUS_SESSION_BUS_ADDRESS DBUS_PID < <(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1 | paste -sd' ')
export DBUS_SESSION_BUS_ADDRESS
trap 'kill "$DBUS_PID" 2>/dev/null || true; rm -rf "$SANDBOX"' EXIT  # the keyring daemon exits with its bus
printf %s bench-keyring-password | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1
gdbus wait --session --timeout 10 org.freedesktop.secrets

SERVICE=bv-bench-list
printf '%s\n%s\n' "$SERVICE" "$ITEMS" | "$PYTHON" -c '
import sys, secretstorage
service, count = sys.stdin.read().split()
conn = secretstorage.dbus_init()
# gnome-keyring'"'"'s in-memory collection: the login keyring rewrites its file for every item created.
collection = secretstorage.Collection(conn, "/org/freedesktop/secrets/collection/session")
for index in range(int(count)):
    collection.create_item("bench %d" % index, {"xdg:schema": "io.github.biometricsvault.Plain", "service": service,
        "username": "key-%05d" % index, "bv-header": "bv1;none"}, b"{\"token\":\"x\"}", replace=False)'

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_ms() {  # runs "$@" RUNS times, prints the median wall time in ms
    for _ in $(seq "$RUNS"); do
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1
        echo $(( ($(date +%s%N) - start) / 1000000 ))
    done | median
}

listed=$("$BV_CLI_BINARY" list --service "$SERVICE" --store secret-service --authenticator none | wc -l)
[ "$listed" -eq "$ITEMS" ] || { echo "list printed $listed keys, expected $ITEMS" >&2; exit 1; }
ours=$(time_ms "$BV_CLI_BINARY" list --service "$SERVICE" --store secret-service --authenticator none)
theirs=$(time_ms secret-tool search --all service "$SERVICE")
echo "items: $ITEMS, runs: $RUNS (medians)"
echo "biometrics-vault list:        ${ours} ms"
echo "secret-tool search --all:     ${theirs} ms"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "ratio list / secret-tool: %.2fx (goal <= 2x)\n", a / b }'
