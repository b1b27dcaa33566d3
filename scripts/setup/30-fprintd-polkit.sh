#!/usr/bin/env bash
# Brings up the REAL Linux authentication stack for BiometricsVaultLinuxAuth's tests, from a bare
# Debian machine, as root, without systemd and without fingerprint hardware:
#   system dbus-daemon -> polkitd (+ a CI rule) -> fprintd -t on libfprint's virtual sensor,
#   the packaged PAM service and polkit action, and two non-root test users with known passwords.
# Idempotent: re-running it reuses running daemons (started from here, by recorded PID) or starts them.
# Appends BV_FPRINT_SOCKET, BV_TEST_USER, ... to $BV_ENV_FILE for the tests.
# Recipe and facts: shared reference "fingerprint-pam-polkit-ci.md".
set -euo pipefail
cd "$(dirname "$0")/../.."
REPO=$PWD
WORK=${BV_FPRINT_WORK:-/run/biometrics-vault-ci}
SOCK=$WORK/fp-virtual.sock
TEST_USER=vaulttest
OTHER_USER=vaultother
ENV_FILE=${BV_ENV_FILE:-/dev/null}

if [ "$(id -u)" -ne 0 ]; then
    # It starts system daemons and creates users: as a developer, through sudo.
    command -v sudo >/dev/null || { echo "30-fprintd-polkit.sh must run as root (it starts system daemons)"; exit 1; }
    exec sudo --preserve-env=BV_ENV_FILE,BV_FPRINT_WORK bash "$0" "$@"
fi
mkdir -p "$WORK"; chmod 755 "$WORK"

# 1. packages (CI machines are fresh; install only what is missing)
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in dbus polkitd pkexec fprintd libfprint-2-2 libpam-fprintd libpam-modules libpam-runtime passwd bsdutils; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 2. the distribution's libfprint must contain the virtual (test) drivers
LIB=$(ls /usr/lib/*/libfprint-2.so.2 2>/dev/null | head -1 || true)
if [ -z "$LIB" ] || ! grep -qa FP_VIRTUAL_DEVICE_STORAGE "$LIB"; then
    echo "libfprint lacks the virtual_device_storage driver: fingerprint tests cannot run here"
    exit 1
fi

# 3. non-root test users with known passwords (password = user name + "-pw"); fprintd always
#    authorizes uid 0, so denial tests must run as one of these.
for u in "$TEST_USER" "$OTHER_USER"; do
    id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u"
    echo "$u:$u-pw" | chpasswd
done

# 4. packaged configuration: PAM service, polkit action; and the CI-only polkit rule for fprintd
install -m 644 Resources/linux/biometrics-vault /etc/pam.d/biometrics-vault
install -d -m 755 /usr/share/polkit-1/actions
install -m 644 Resources/linux/io.github.biometricsvault.policy /usr/share/polkit-1/actions/io.github.biometricsvault.policy
mkdir -p /etc/polkit-1/rules.d
install -m 644 Resources/linux/ci/50-biometrics-vault-ci.rules /etc/polkit-1/rules.d/50-biometrics-vault-ci.rules

busy() { busctl --system status "$1" >/dev/null 2>&1; }
wait_for() { for _ in $(seq 100); do busy "$1" && return 0; sleep 0.1; done; echo "$1 did not appear on the system bus"; return 1; }
alive() { [ -s "$WORK/$1.pid" ] && kill -0 "$(cat "$WORK/$1.pid")" 2>/dev/null; }

# 5. the system bus at its standard address (the setuid polkit-agent-helper-1 ignores
#    DBUS_SYSTEM_BUS_ADDRESS, so a private bus would not do)
if ! busy org.freedesktop.DBus; then
    mkdir -p /run/dbus; rm -f /run/dbus/pid
    dbus-daemon --system --fork --print-pid=3 3>"$WORK/dbus.pid"
    echo "started system dbus-daemon (pid $(cat "$WORK/dbus.pid"))"
fi

# 6. polkitd (drops to user polkitd by itself). One an earlier run of this script started is started
#    again: it re-reads its rules on every change, and after the changes of a whole run (the vault
#    service's and the .deb's rules installed and removed) one was seen denying the test users what the CI
#    rule grants them until it was restarted.
# shellcheck source=../lib/ci-polkitd.sh
BV_FPRINT_WORK=$WORK source scripts/lib/ci-polkitd.sh
ci_polkitd_restart

# 7. fprintd on the virtual sensor. umask 000: the sensor's control socket must be connectable by the
#    non-root tests; fprintd keeps its prints in 0700 directories, so they stay private.
if busy net.reactivated.Fprint && ! alive fprintd; then
    echo "a fprintd not started by this script owns net.reactivated.Fprint; stop it first"; exit 1
fi
if ! alive fprintd; then
    # A new fprintd starts with an empty virtual sensor, so prints recorded by an earlier fprintd (a
    # previous run on this machine) would point at nothing: start from an empty print store too.
    rm -f "$SOCK"
    rm -rf "$WORK/fprint-state" "$WORK/fprint-run"
    mkdir -p "$WORK/fprint-state" "$WORK/fprint-run"
    ( umask 000
      FP_VIRTUAL_DEVICE_STORAGE=$SOCK FP_DRIVERS_WHITELIST=virtual_device_storage \
      STATE_DIRECTORY=$WORK/fprint-state RUNTIME_DIRECTORY=$WORK/fprint-run G_MESSAGES_DEBUG=all \
        exec /usr/libexec/fprintd -t >"$WORK/fprintd.log" 2>&1 ) &
    echo $! >"$WORK/fprintd.pid"
    wait_for net.reactivated.Fprint
    echo "started fprintd (pid $(cat "$WORK/fprintd.pid"), virtual sensor $SOCK)"
fi

# 8. what the tests need
{
    echo "BV_FPRINT_SOCKET=$SOCK"
    echo "BV_FPRINT_WORK=$WORK"
    echo "BV_TEST_USER=$TEST_USER"
    echo "BV_TEST_PASSWORD=$TEST_USER-pw"
    echo "BV_TEST_OTHER_USER=$OTHER_USER"
    echo "BV_LINUX_AUTH_REPO=$REPO"
} >>"$ENV_FILE"
echo "linux auth stack ready (logs in $WORK)"
