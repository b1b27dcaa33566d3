#!/usr/bin/env bash
# The vault service, whole processes, with hyperfine: `biometrics-vault show --store service` of a plain
# item against `secret-tool lookup` of the same bytes on gnome-keyring (goal: 1.0x, Docs/Benchmarks.md),
# the first answer after the service exited (D-Bus activation starts it again: `--prepare` kills it), and
# what a protected read costs beyond fprintd's own verify: `show` of an item behind a finger against
# `fprintd-verify`, both as the test user, the virtual reader touched the moment fprintd asks for a finger
# (Benchmarks/fingerprint-responder.py, the same reflex for both). That part needs fprintd on the virtual
# reader, the test user and jeepney (scripts/setup/30-fprintd-polkit.sh and 20-secret-service.sh; the
# variables of $BV_ENV_FILE).
# As root: it installs the service (scripts/lib/vault-service.sh) pointed at the release build, on the
# system bus that scripts/setup/30-fprintd-polkit.sh runs, and removes it at the end.
#   sudo bash Benchmarks/run-vault-service.sh     # SCRATCH=.build-release (package-deb.sh's) RUNS=30 BIN=...
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run-vault-service.sh needs root (it installs the service)"; exit 1; }
SCRATCH=${SCRATCH:-.build-release}
RUNS=${RUNS:-30}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }
if [ -z "${BIN:-}" ]; then   # BIN=path: a release build made elsewhere (package-deb.sh's, say)
    # Linked as the .deb's is (and so as package-deb.sh's build in the same folder).
    # shellcheck source=../scripts/lib/fast-start-link-flags.sh
    source scripts/lib/fast-start-link-flags.sh
    bv_fast_start_flags "$SCRATCH"
    swift build -c release --product biometrics-vault --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" 2>&1 | tail -n 1
    BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" --show-bin-path)/biometrics-vault"
fi

# shellcheck source=../scripts/lib/vault-service.sh
source scripts/lib/vault-service.sh
WORK=$(mktemp -d /tmp/bv-service-bench.XXXXXX)
chmod 755 "$WORK"
trap 'vault_service_uninstall; rm -rf "$WORK"' EXIT
vault_service_install "$BIN"
ITEM='{"user":"bench","token":"0123456789abcdef0123456789abcdef0123456789abcdef","url":"https://example.invalid/api"}'
echo "$ITEM" | "$BIN" store bench --store service >/dev/null
OURS="$BIN show bench --store service"
[ "$($OURS)" = "$ITEM" ] || { echo "the service did not return the item"; exit 1; }

# The peer: secret-tool on a throw-away session bus with an unlocked gnome-keyring (as run-secret-service.sh).
mkdir -p "$WORK/data" "$WORK/run"; chmod 700 "$WORK/run"
export XDG_DATA_HOME=$WORK/data XDG_RUNTIME_DIR=$WORK/run BIN OURS RUNS ITEM WORK
unset DISPLAY WAYLAND_DISPLAY
dbus-run-session -- bash -euo pipefail -c '
    printf %s bench-keyring-password | gnome-keyring-daemon --replace --unlock --components=secrets >/dev/null 2>&1
    gdbus wait --session --timeout 10 org.freedesktop.secrets
    printf %s "$ITEM" | secret-tool store --label bench service bv-service-bench username bench
    THEIRS="secret-tool lookup service bv-service-bench username bench"
    hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$WORK/warm.json" "$OURS" "$THEIRS"
    hyperfine -N --runs 10 --prepare "sh -c \"pkill -KILL -u biometrics-vault -x biometrics-vaul; sleep 0.3\"" --export-json "$WORK/cold.json" "$OURS"
'
python3 - "$WORK/warm.json" "$WORK/cold.json" <<'PY'
import json, sys
warm = json.load(open(sys.argv[1]))["results"]
cold = json.load(open(sys.argv[2]))["results"][0]
ours, theirs = warm[0]["median"], warm[1]["median"]
print(f"show through the service: {ours*1000:.2f} ms median; secret-tool lookup: {theirs*1000:.2f} ms; ratio {ours/theirs:.2f}x")
print(f"first show after the service exited (D-Bus activation included): {cold['median']*1000:.1f} ms median")
PY

# A protected read against fprintd's verify, as the test user.
if [ -z "${BV_FPRINT_SOCKET:-}" ] || [ -z "${BV_TEST_USER:-}" ] || [ -z "${BV_PYTHON_KEYRING:-}" ]; then
    echo "protected read: not measured (needs BV_FPRINT_SOCKET, BV_TEST_USER and BV_PYTHON_KEYRING from \$BV_ENV_FILE)"
    exit 0
fi
mkdir -p "$WORK/home/run"
chown -R "$BV_TEST_USER" "$WORK/home"
chmod -R 700 "$WORK/home"
AS_USER="runuser -u $BV_TEST_USER -- env -i PATH=/usr/bin:/bin HOME=$WORK/home XDG_RUNTIME_DIR=$WORK/home/run SWIFT_BACKTRACE=enable=no"
"$BV_PYTHON_KEYRING" Benchmarks/fingerprint-responder.py bench-finger > "$WORK/responder.log" 2>&1 &
RESPONDER=$!
trap 'kill $RESPONDER 2>/dev/null; fprintd-delete "$BV_TEST_USER" >/dev/null 2>&1; vault_service_uninstall; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do grep -q ready "$WORK/responder.log" && break; sleep 0.1; done
fprintd-delete "$BV_TEST_USER" >/dev/null
fprintd-enroll -f right-index-finger "$BV_TEST_USER" | tail -n 1
printf %s "$ITEM" | $AS_USER "$BIN" store protected --biometrics --store service >/dev/null
[ "$($AS_USER "$BIN" show protected --store service </dev/null 2>/dev/null)" = "$ITEM" ] || { echo "the protected item did not read back"; exit 1; }
hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/protected.json" \
    "$AS_USER $BIN show protected --store service" "$AS_USER fprintd-verify"
python3 - "$WORK/protected.json" <<'PY'
import json, sys
ours, verify = (r["median"] for r in json.load(open(sys.argv[1]))["results"])
print(f"protected show: {ours*1000:.1f} ms median; fprintd-verify: {verify*1000:.1f} ms; beyond the verify: {(ours-verify)*1000:.1f} ms")
PY
