#!/usr/bin/env bash
# `secret-tool search --all` on 10,000 items of the Secret Service provider (`biometrics-vault
# secret-service`, its items in the vault service) vs the same search on gnome-keyring holding the same
# items (goal: within 1.5x; Docs/Benchmarks.md).
#   sudo bash Benchmarks/run-secret-service-provider.sh            # release CLI, built here
#   sudo BV_CLI_BINARY=path/to/biometrics-vault bash Benchmarks/run-secret-service-provider.sh
# As root: it needs the vault service. An installed one (the .deb's) is used as it is, and the items go
# into a collection of their own, deleted at the end; without one, the CI's throw-away service is
# installed for the run (scripts/lib/vault-service.sh: it starts EMPTY and is removed at the end).
# Each provider runs on a session bus of its own; python secretstorage fills both (gnome-keyring's
# in-memory `session` collection, the provider's `bench` collection, which the vault service keeps on
# disk), then RUNS runs of each search are timed, interleaved, and the medians printed.
set -euo pipefail
cd "$(dirname "$0")/.."
ITEMS=${ITEMS:-10000}
RUNS=${RUNS:-5}
SCRATCH=${BV_SCRATCH:-.build-bench}
[ "$(id -u)" -eq 0 ] || { echo "run as root: the vault service is installed for the run" >&2; exit 1; }
if [ -z "${BV_CLI_BINARY:-}" ]; then
    swift build -c release --scratch-path "$SCRATCH" --product biometrics-vault 2>&1 | tail -1
    BV_CLI_BINARY=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/biometrics-vault
fi
/usr/bin/python3 -c 'import secretstorage' || { echo "needs Debian's python3-secretstorage" >&2; exit 1; }
# shellcheck source=../scripts/lib/vault-service.sh
source scripts/lib/vault-service.sh
# The standard session bus configuration: its limits are a desktop's (the tests' private buses keep
# dbus-daemon's built-in ones, under which libsecret's many concurrent calls of a large search fail).
start_session_bus() {  # directory
    local pid
    read -r DBUS_SESSION_BUS_ADDRESS pid < <(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1 | paste -sd' ')
    export DBUS_SESSION_BUS_ADDRESS
    echo "$pid" > "$1/dbus.pid"
}

SANDBOX=$(mktemp -d)
installed_here=0
cleanup() {
    for bus in keyring provider; do
        [ -s "$SANDBOX/$bus/dbus.pid" ] && kill "$(cat "$SANDBOX/$bus/dbus.pid")" 2>/dev/null
    done
    [ "$installed_here" = 0 ] || vault_service_uninstall
    rm -rf "$SANDBOX"
}
trap cleanup EXIT
if [ ! -e /usr/share/dbus-1/system-services/io.github.biometricsvault.Vault1.service ]; then
    vault_service_install "$BV_CLI_BINARY"
    installed_here=1
fi

mkdir -p "$SANDBOX/keyring/run" "$SANDBOX/keyring/data" "$SANDBOX/provider/run"
unset DISPLAY WAYLAND_DISPLAY
start_session_bus "$SANDBOX/keyring"
KEYRING_BUS=$DBUS_SESSION_BUS_ADDRESS
XDG_DATA_HOME=$SANDBOX/keyring/data XDG_RUNTIME_DIR=$SANDBOX/keyring/run \
    bash -c 'printf %s bench-keyring-password | gnome-keyring-daemon --replace --unlock --components=secrets' >/dev/null 2>&1
gdbus wait --session --timeout 10 org.freedesktop.secrets
start_session_bus "$SANDBOX/provider"
PROVIDER_BUS=$DBUS_SESSION_BUS_ADDRESS
setsid "$BV_CLI_BINARY" secret-service > "$SANDBOX/provider.log" 2>&1 &
gdbus wait --session --timeout 30 org.freedesktop.secrets

fill() {  # bus collection-path-or-label
    DBUS_SESSION_BUS_ADDRESS=$1 /usr/bin/python3 - "$2" "$ITEMS" <<'EOF'
import sys, time, secretstorage
target, count = sys.argv[1], int(sys.argv[2])
conn = secretstorage.dbus_init()
if target.startswith("/"):
    collection = secretstorage.Collection(conn, target)
else:
    collection = secretstorage.create_collection(conn, target)
start = time.time()
for index in range(count):
    collection.create_item("bench %d" % index, {"service": "bv-bench-search", "username": "key-%05d" % index},
                           b"{\"token\":\"x\"}", replace=False)
print("%s: %d items in %.1f s" % (target, count, time.time() - start))
EOF
}
fill "$KEYRING_BUS" /org/freedesktop/secrets/collection/session
fill "$PROVIDER_BUS" bench

# A search that fails (secret-tool exits non-zero: libsecret 0.20.5 gives up on some of many items, with
# "No such secret item at path") is reported and not timed.
search() { DBUS_SESSION_BUS_ADDRESS=$1 secret-tool search --all service bv-bench-search >/dev/null 2>"$SANDBOX/search.err"; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "none") }'; }
for _ in $(seq "$RUNS"); do
    for which in keyring provider; do
        bus=$KEYRING_BUS; [ "$which" = keyring ] || bus=$PROVIDER_BUS
        start=$(date +%s%N)
        if search "$bus"; then
            echo "$which $(( ($(date +%s%N) - start) / 1000000 ))"
        else
            echo "$which failed after $(( ($(date +%s%N) - start) / 1000000 )) ms: $(grep -v CRITICAL "$SANDBOX/search.err" | grep . | tail -1)" >&2
        fi
    done
done > "$SANDBOX/times"
found=$(DBUS_SESSION_BUS_ADDRESS=$PROVIDER_BUS secret-tool search --all service bv-bench-search 2>/dev/null | grep -c '^label = ' || true)
keyring_ms=$(awk '$1 == "keyring" { print $2 }' "$SANDBOX/times" | median)
provider_ms=$(awk '$1 == "provider" { print $2 }' "$SANDBOX/times" | median)
echo "secret-tool search --all, $ITEMS items ($found found through the provider), median of the runs that completed, of $RUNS:"
echo "  gnome-keyring                    ${keyring_ms} ms ($(grep -c '^keyring' "$SANDBOX/times") completed)"
echo "  biometrics-vault secret-service  ${provider_ms} ms ($(grep -c '^provider' "$SANDBOX/times") completed)"
if [ "$keyring_ms" != none ] && [ "$provider_ms" != none ]; then
    awk -v p="$provider_ms" -v k="$keyring_ms" 'BEGIN { printf "  ratio %.2fx (goal: within 1.5x)\n", p / k }'
fi

# The provider's collection and its items go (from the vault service too).
DBUS_SESSION_BUS_ADDRESS=$PROVIDER_BUS /usr/bin/python3 -c '
import secretstorage
conn = secretstorage.dbus_init()
for collection in secretstorage.get_all_collections(conn):
    if collection.get_label() == "bench":
        collection.delete()' || echo "the provider's bench collection was not deleted: delete it with secretstorage or seahorse" >&2
