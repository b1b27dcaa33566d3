#!/usr/bin/env bash
# Brings up KeePassXC (Debian 12 keepassxc 2.7.4) as a REAL Secret Service provider, headless, for the
# provider-parameterised Secret Service tests:
#   a private dbus-daemon with NO service directories (a standard session bus would D-Bus-activate
#   gnome-keyring for org.freedesktop.secrets) -> keepassxc (offscreen) with a throw-away database made
#   by pykeepass (PyPI), its group exposed through Meta/CustomData FDO_SECRETS_EXPOSED_GROUP and the
#   integration enabled, without confirmations, in keepassxc.ini.
# Appends BV_KEEPASSXC_BUS_ADDRESS and BV_KEEPASSXC_SANDBOX to $BV_ENV_FILE.
# Re-runnable: every run starts its own bus and keepassxc (PIDs in the sandbox directory).
# Recipe: shared reference "providers-and-suites-ci.md" (KeePassXC).
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
STATE=${BV_KEEPASSXC_STATE:-$PWD/.build-ci/keepassxc}
mkdir -p "$STATE"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
started=$(date +%s%N)

# 1. packages
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in dbus-daemon libglib2.0-bin python3 python3-venv keepassxc; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 2. pykeepass (PyPI) in a venv of Debian's python3, to write the database's exposed-group setting
VENV=$STATE/venv
if ! "$VENV/bin/python" -c 'import pykeepass' >/dev/null 2>&1; then
    rm -rf "$VENV"
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check pykeepass
fi

# 3. sandboxes of earlier runs whose bus is gone
for old in /tmp/bv-keepassxc.*; do
    [ -s "$old/dbus.pid" ] || continue
    kill -0 "$(cat "$old/dbus.pid")" 2>/dev/null && continue
    if [ -s "$old/keepassxc.pid" ]; then kill "$(cat "$old/keepassxc.pid")" 2>/dev/null || true; fi
    rm -rf "$old"
done

SANDBOX=$(mktemp -d /tmp/bv-keepassxc.XXXXXX)
mkdir -p "$SANDBOX/config/keepassxc" "$SANDBOX/data" "$SANDBOX/run"
chmod 700 "$SANDBOX/run"
export XDG_CONFIG_HOME=$SANDBOX/config XDG_DATA_HOME=$SANDBOX/data XDG_RUNTIME_DIR=$SANDBOX/run
export QT_QPA_PLATFORM=offscreen
unset DISPLAY WAYLAND_DISPLAY

# 4. the bus: no service directories, allow-all policy (private to this user's tests)
# shellcheck source=../lib/private-session-bus.sh
source scripts/lib/private-session-bus.sh
start_private_session_bus "$SANDBOX"

# 5. settings: the Secret Service integration on, no notification, no confirmation dialogs; no saving
#    after each change (the database is throw-away, and 2.7.4 crashed in its background save thread
#    while the conformance suite's concurrent writers changed entries)
cat > "$XDG_CONFIG_HOME/keepassxc/keepassxc.ini" <<EOF
[General]
ConfigVersion=2
SingleInstance=false
AutoSaveAfterEveryChange=false
AutoSaveOnExit=false
BackupBeforeSave=false

[FdoSecrets]
Enabled=true
ShowNotification=false
ConfirmAccessItem=false
ConfirmDeleteItem=false
UnlockBeforeSearch=false
EOF

# 6. the database, with one group exposed as the Secret Service collection. The password goes on stdin.
PASSWORD="bv-ci-keepassxc-password"
printf %s "$PASSWORD" | "$VENV/bin/python" -c '
import sys, uuid
from pykeepass import create_database
db = create_database(sys.argv[1], password=sys.stdin.read())
group = db.add_group(db.root_group, "Secret Service")
meta = db._xpath("/KeePassFile/Meta", first=True)
from lxml import etree
custom = meta.find("CustomData")
if custom is None:
    custom = etree.SubElement(meta, "CustomData")
item = etree.SubElement(custom, "Item")
etree.SubElement(item, "Key").text = "FDO_SECRETS_EXPOSED_GROUP"
etree.SubElement(item, "Value").text = "{%s}" % group.uuid
db.save()' "$SANDBOX/secrets.kdbx"

# 7. keepassxc opens it (password on stdin); it has no daemon mode, so it runs in the background
printf '%s\n' "$PASSWORD" | keepassxc --pw-stdin "$SANDBOX/secrets.kdbx" >"$SANDBOX/keepassxc.log" 2>&1 &
echo $! > "$SANDBOX/keepassxc.pid"
gdbus wait --session --timeout 30 org.freedesktop.secrets

# 8. the collection is announced a few seconds before items are served: wait for a default alias,
#    then for a store + read round trip through Secret Service calls
for _ in $(seq 150); do
    gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.ReadAlias default 2>/dev/null | grep -q "objectpath '/'" || break
    sleep 0.1
done
if gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
    --method org.freedesktop.Secret.Service.ReadAlias default | grep -q "objectpath '/'"; then
    echo "keepassxc: no default collection" >&2
    cat "$SANDBOX/keepassxc.log" >&2
    exit 1
fi
for attempt in $(seq 50); do
    if gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.SearchItems "{'bv-setup': 'smoke'}" >/dev/null 2>&1; then
        break
    fi
    sleep 0.2
done

{
    echo "BV_KEEPASSXC_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
    echo "BV_KEEPASSXC_SANDBOX=$SANDBOX"
} >> "$ENV_FILE"
elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
echo "keepassxc: bus $DBUS_SESSION_BUS_ADDRESS (dbus pid $(cat "$SANDBOX/dbus.pid"), keepassxc pid $(cat "$SANDBOX/keepassxc.pid")) in $SANDBOX; ${elapsed} ms"
