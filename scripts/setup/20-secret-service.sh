#!/usr/bin/env bash
# Brings up a REAL freedesktop Secret Service (gnome-keyring) for BiometricsVaultSecretService's tests,
# headless, from a bare Debian 12 machine:
#   a session dbus-daemon (background, outlives this script) -> gnome-keyring-daemon with a fresh
#   "login" keyring in a throw-away directory, unlocked with a throw-away password.
# Also installs secret-tool and python `keyring` (from PyPI, into a venv) for the interop tests, and
# Debian's python3-keyring and python3-secretstorage, which the test users run against the provider.
# Appends DBUS_SESSION_BUS_ADDRESS, BV_SECRET_SERVICE_SANDBOX and BV_PYTHON_KEYRING to $BV_ENV_FILE.
# Re-runnable: every run starts its own bus + keyring (PIDs in the sandbox directory); sandboxes of
# earlier runs whose bus has gone are removed.
# Recipe and pitfalls: shared reference "secret-service-ci.md".
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
STATE=${BV_SECRET_SERVICE_STATE:-$PWD/.build-ci/secret-service}
mkdir -p "$STATE"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

# 1. packages (install only what is missing; CI machines are fresh)
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in dbus dbus-daemon dbus-bin gnome-keyring libsecret-tools libglib2.0-bin python3 python3-venv \
    python3-secretstorage python3-keyring; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 2. python keyring (PyPI) in a venv of Debian's own python3 (a pyenv python3 earlier on PATH may lack
#    venv/ensurepip). Falls back to Debian's python3-keyring when PyPI is unreachable.
VENV=$STATE/keyring-venv
if ! "$VENV/bin/python" -c 'import keyring' >/dev/null 2>&1; then
    rm -rf "$VENV"
    if /usr/bin/python3 -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check keyring; then
        :
    else
        echo "pip install keyring failed; using Debian's python3-keyring"
        rm -rf "$VENV"
        dpkg -s python3-keyring >/dev/null 2>&1 || {
            apt_update_once
            $SUDO apt-get install -y -qq --no-install-recommends python3-keyring python3-secretstorage >/dev/null
        }
    fi
fi
if [ -x "$VENV/bin/python" ]; then PYTHON_KEYRING=$VENV/bin/python; else PYTHON_KEYRING=/usr/bin/python3; fi

# 3. tidy up after earlier runs whose bus is gone (a bus still running may serve another test run:
#    it is never killed here; each run gets its own bus and keyring)
for old in /tmp/bv-secret-service.*; do
    # Only sandboxes of this script's own layout, complete (dbus.pid written) and with their bus gone.
    [ -s "$old/dbus.pid" ] || continue
    kill -0 "$(cat "$old/dbus.pid")" 2>/dev/null && continue
    if [ -s "$old/keyring.pid" ]; then kill "$(cat "$old/keyring.pid")" 2>/dev/null || true; fi
    rm -rf "$old"
done

# 4. throw-away keyring storage + runtime dir. They are exported to the bus itself, so a daemon that
#    D-Bus activation might start inherits them too (pitfall 6); HOME is left alone.
SANDBOX=$(mktemp -d /tmp/bv-secret-service.XXXXXX)
mkdir -p "$SANDBOX/data" "$SANDBOX/run"; chmod 700 "$SANDBOX/run"
export XDG_DATA_HOME=$SANDBOX/data XDG_RUNTIME_DIR=$SANDBOX/run
unset DISPLAY WAYLAND_DISPLAY

# 5. the session bus, in the background; it outlives this script and serves the final `swift test`.
read -r DBUS_SESSION_BUS_ADDRESS DBUS_PID < <(dbus-daemon --session --fork --nopidfile \
    --print-address=1 --print-pid=1 2>/dev/null | paste -sd' ')
export DBUS_SESSION_BUS_ADDRESS
echo "$DBUS_PID" > "$SANDBOX/dbus.pid"

# 6. gnome-keyring: a non-empty password without a trailing newline creates and unlocks "login"
#    (pitfalls 1-2); --replace takes over a daemon that activation may have started (pitfall 4);
#    wait until it owns the name (pitfall 3).
printf %s "bv-ci-keyring-password" | gnome-keyring-daemon --replace --unlock --components=secrets \
    >"$SANDBOX/keyring.log" 2>&1
gdbus wait --session --timeout 10 org.freedesktop.secrets
KEYRING_PID=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets | sed -E 's/.*uint32 ([0-9]+).*/\1/')
echo "$KEYRING_PID" > "$SANDBOX/keyring.pid"

# 7. smoke test: store, look up, clear through secret-tool (the daemon is up, "login" is unlocked)
printf %s smoke | secret-tool store --label=bv-smoke bv-setup smoke
test "$(secret-tool lookup bv-setup smoke)" = smoke
secret-tool clear bv-setup smoke
"$PYTHON_KEYRING" -c 'import keyring, keyring.backends.SecretService as s; assert isinstance(keyring.get_keyring(), s.Keyring), keyring.get_keyring()'

{
    echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
    echo "BV_SECRET_SERVICE_SANDBOX=$SANDBOX"
    echo "BV_PYTHON_KEYRING=$PYTHON_KEYRING"
} >> "$ENV_FILE"
echo "secret service: bus $DBUS_SESSION_BUS_ADDRESS (dbus pid $DBUS_PID, gnome-keyring pid $KEYRING_PID), keyring in $SANDBOX"
