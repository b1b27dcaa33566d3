#!/usr/bin/env bash
# Brings up KDE's KWallet (kwalletd5, Debian 12 libkf5wallet-bin) as a REAL Secret Service provider,
# headless, for the provider-parameterised Secret Service tests:
#   a private dbus-daemon with NO service directories (a standard session bus would D-Bus-activate
#   gnome-keyring for org.freedesktop.secrets) -> kwalletd5 with its Secret Service API enabled, its
#   wallet created and opened without a dialog through org.kde.KWallet.pamOpen, as pam_kwallet does.
# Appends BV_KWALLET_BUS_ADDRESS and BV_KWALLET_SANDBOX to $BV_ENV_FILE.
# Re-runnable: every run starts its own bus and kwalletd5 (PIDs in the sandbox directory).
# Recipe: shared reference "providers-and-suites-ci.md" (KWallet).
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
started=$(date +%s%N)

# 1. packages: kwalletd5, and the QCA OpenSSL plugin (without it kwalletd5 offers only the `plain`
#    session, which the store refuses).
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in dbus-daemon libglib2.0-bin python3 libkf5wallet-bin libqca-qt5-2-plugins; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 2. sandboxes of earlier runs whose bus is gone
for old in /tmp/bv-kwallet.*; do
    [ -s "$old/dbus.pid" ] || continue
    kill -0 "$(cat "$old/dbus.pid")" 2>/dev/null && continue
    if [ -s "$old/kwalletd.pid" ]; then kill "$(cat "$old/kwalletd.pid")" 2>/dev/null || true; fi
    rm -rf "$old"
done

SANDBOX=$(mktemp -d /tmp/bv-kwallet.XXXXXX)
mkdir -p "$SANDBOX/config" "$SANDBOX/data/kwalletd" "$SANDBOX/run"
chmod 700 "$SANDBOX/run" "$SANDBOX/data/kwalletd"
export XDG_CONFIG_HOME=$SANDBOX/config XDG_DATA_HOME=$SANDBOX/data XDG_RUNTIME_DIR=$SANDBOX/run
export QT_QPA_PLATFORM=offscreen
unset DISPLAY WAYLAND_DISPLAY

# 3. the bus: no service directories, allow-all policy (private to this user's tests)
# shellcheck source=../lib/private-session-bus.sh
source scripts/lib/private-session-bus.sh
start_private_session_bus "$SANDBOX"

# 4. kwalletrc: one wallet, no first-use wizard, the Secret Service API on
cat > "$XDG_CONFIG_HOME/kwalletrc" <<EOF
[Wallet]
Enabled=true
First Use=false
Default Wallet=kdewallet
Use One Wallet=true

[org.freedesktop.secrets]
apiEnabled=true
EOF

start_kwalletd() {
    kwalletd5 >>"$SANDBOX/kwalletd.log" 2>&1 &
    echo $! > "$SANDBOX/kwalletd.pid"
    gdbus wait --session --timeout 15 org.kde.kwalletd5
    gdbus wait --session --timeout 15 org.freedesktop.secrets
}

# pamOpen takes the key pam_kwallet derives: PBKDF2-HMAC-SHA512(password, the wallet's salt file,
# 50,000 iterations, 56 bytes). The password is a throw-away one; it never appears in argv (the key
# does, as bytes, only on this private bus's throw-away wallet).
head -c 56 /dev/urandom > "$XDG_DATA_HOME/kwalletd/kdewallet.salt"
KEY=$(printf %s "bv-ci-kwallet-password" | /usr/bin/python3 -c '
import hashlib, sys
salt = open(sys.argv[1], "rb").read()
key = hashlib.pbkdf2_hmac("sha512", sys.stdin.buffer.read(), salt, 50000, 56)
print("[" + ", ".join("byte 0x%02x" % b for b in key) + "]")' "$XDG_DATA_HOME/kwalletd/kdewallet.salt")
echo "$KEY" > "$SANDBOX/wallet.key"
chmod 600 "$SANDBOX/wallet.key"

pam_open() {
    gdbus call --session --dest org.kde.kwalletd5 --object-path /modules/kwalletd5 \
        --method org.kde.KWallet.pamOpen kdewallet "$(cat "$SANDBOX/wallet.key")" 0 >/dev/null
}

default_alias() {
    gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.ReadAlias default
}

# 5. first use creates the wallet; it shows in the Secret Service only after a restart and a second
#    pamOpen (kwalletd5 5.103 quirk).
start_kwalletd
pam_open
if default_alias | grep -q "objectpath '/'"; then
    kill "$(cat "$SANDBOX/kwalletd.pid")"
    for _ in $(seq 100); do kill -0 "$(cat "$SANDBOX/kwalletd.pid")" 2>/dev/null || break; sleep 0.05; done
    start_kwalletd
    pam_open
fi
for _ in $(seq 50); do
    default_alias | grep -q "objectpath '/'" || break
    sleep 0.1
done
if default_alias | grep -q "objectpath '/'"; then
    echo "kwallet: no default collection after pamOpen" >&2
    cat "$SANDBOX/kwalletd.log" >&2
    exit 1
fi

# 6. smoke test: the encrypted session, which kwalletd5 offers only with the QCA plugin (a key of 2 is
#    answered; only NotSupported would mean the plugin is missing)
session=$(gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
    --method org.freedesktop.Secret.Service.OpenSession dh-ietf1024-sha256-aes128-cbc-pkcs7 \
    "<@ay [byte 0x02]>" 2>&1 || true)
if printf %s "$session" | grep -q NotSupported; then
    echo "kwallet: no encrypted session (is libqca-qt5-2-plugins installed?): $session" >&2
    exit 1
fi

{
    echo "BV_KWALLET_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
    echo "BV_KWALLET_SANDBOX=$SANDBOX"
} >> "$ENV_FILE"
elapsed=$(( ($(date +%s%N) - started) / 1000000 ))
echo "kwallet: bus $DBUS_SESSION_BUS_ADDRESS (dbus pid $(cat "$SANDBOX/dbus.pid"), kwalletd5 pid $(cat "$SANDBOX/kwalletd.pid")) in $SANDBOX; ${elapsed} ms"
