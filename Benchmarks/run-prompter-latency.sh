#!/usr/bin/env bash
# From the bus call that starts a check (`Authenticate` on the system bus) to the prompter's `Notify` on
# the user's session bus: how long a person waits for the prompt to be asked for (Docs/Benchmarks.md;
# goal under 100 ms). Both times are the bus daemons' view, from `dbus-monitor` (the k-th Authenticate
# paired with the k-th Notify). A protected read is repeated RUNS times as the test user with the prompter
# running on a private session bus with dunst on Xvfb, and a finger answered at once by
# Benchmarks/fingerprint-responder.py.
# As root, after scripts/setup/30-fprintd-polkit.sh (BV_TEST_USER, BV_FPRINT_SOCKET, BV_PYTHON_KEYRING
# from $BV_ENV_FILE), with xvfb and dunst installed: it installs the service (scripts/lib/vault-service.sh)
# from BIN (default: the debug build) and removes it at the end.
#   sudo bash Benchmarks/run-prompter-latency.sh       # BIN=... RUNS=20
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run-prompter-latency.sh needs root (it installs the service)"; exit 1; }
: "${BV_TEST_USER:?set by scripts/setup/30-fprintd-polkit.sh}" "${BV_FPRINT_SOCKET:?}" "${BV_PYTHON_KEYRING:?}"
command -v Xvfb >/dev/null && command -v dunst >/dev/null || { echo "needs xvfb and dunst"; exit 1; }
BIN=${BIN:-$(swift build --show-bin-path)/biometrics-vault}
RUNS=${RUNS:-20}
ITEM='{"token":"prompter-latency"}'
# shellcheck source=../scripts/lib/vault-service.sh
source scripts/lib/vault-service.sh
WORK=$(mktemp -d /tmp/bv-prompter-bench.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/home/run"
chown -R "$BV_TEST_USER" "$WORK/home"
chmod -R 700 "$WORK/home"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    pkill -u "$BV_TEST_USER" -x dunst 2>/dev/null || true
    pkill -u "$BV_TEST_USER" -f "Xvfb :29" 2>/dev/null || true
    fprintd-delete "$BV_TEST_USER" >/dev/null 2>&1 || true
    vault_service_uninstall
    rm -rf "$WORK"
}
trap cleanup EXIT
vault_service_install "$BIN"
AS_USER=(runuser -u "$BV_TEST_USER" -- env -i PATH=/usr/bin:/bin HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/home/run" SWIFT_BACKTRACE=enable=no)

# The user's desktop: a session bus, a display and dunst on it, and the prompter.
BUS=$("${AS_USER[@]}" dbus-daemon --session --fork --print-address=1 --print-pid=1)
ADDRESS=$(sed -n 1p <<< "$BUS")
PIDS+=("$(sed -n 2p <<< "$BUS")")
SESSION=(env DBUS_SESSION_BUS_ADDRESS="$ADDRESS")
"${AS_USER[@]}" Xvfb :29 -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S /tmp/.X11-unix/X29 ] && break; sleep 0.1; done
printf '[global]\n    idle_threshold = 0\n[urgency_critical]\n    timeout = 0\n' > "$WORK/dunstrc"
"${AS_USER[@]}" "${SESSION[@]}" DISPLAY=:29 dunst -config "$WORK/dunstrc" >/dev/null 2>&1 &
PIDS+=($!)
"${AS_USER[@]}" "${SESSION[@]}" "$BIN" prompter > "$WORK/prompter.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q registered "$WORK/prompter.log" && break; sleep 0.1; done
grep -q registered "$WORK/prompter.log" || { cat "$WORK/prompter.log"; exit 1; }

"$BV_PYTHON_KEYRING" Benchmarks/fingerprint-responder.py bench-finger > "$WORK/responder.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$WORK/responder.log" && break; sleep 0.1; done
fprintd-delete "$BV_TEST_USER" >/dev/null
fprintd-enroll -f right-index-finger "$BV_TEST_USER" | tail -n 1
printf %s "$ITEM" | "${AS_USER[@]}" "$BIN" store protected --biometrics --store service >/dev/null

dbus-monitor --system "type='method_call',interface='io.github.biometricsvault.Vault1',member='Authenticate'" > "$WORK/system.log" 2>&1 &
PIDS+=($!)
"${AS_USER[@]}" dbus-monitor --address "$ADDRESS" "type='method_call',interface='org.freedesktop.Notifications',member='Notify'" \
    > "$WORK/session.log" 2>&1 &
PIDS+=($!)
sleep 1
for _ in $(seq "$RUNS"); do
    [ "$("${AS_USER[@]}" "$BIN" show protected --store service --field token </dev/null 2>/dev/null)" = prompter-latency ] \
        || { echo "a protected read failed"; exit 1; }
done
sleep 1
python3 - "$WORK/system.log" "$WORK/session.log" <<'PY'
import re, sys
def times(path):
    return [float(m.group(1)) for m in re.finditer(r"^method call time=([0-9.]+) .*member=(?:Authenticate|Notify)$", open(path).read(), re.M)]
calls, notes = times(sys.argv[1]), times(sys.argv[2])
pairs = [(n - c) * 1000 for c, n in zip(calls, notes)]
if len(calls) != len(notes) or not pairs:
    sys.exit(f"{len(calls)} Authenticate calls but {len(notes)} Notify calls")
pairs.sort()
p = lambda q: pairs[min(len(pairs) - 1, int(q * len(pairs)))]
print(f"Authenticate to Notify over {len(pairs)} checks: p50 {p(0.5):.1f} ms, p95 {p(0.95):.1f} ms, max {pairs[-1]:.1f} ms (goal: under 100 ms)")
PY
