#!/usr/bin/env bash
# The vault service as desktops run it: this machine's systemd as PID 1 of a box of its own
# (scripts/lib/systemd-box.sh), with its logind, its system bus, polkit and fprintd started by their own
# units (fprintd on libfprint's virtual sensor through a drop-in), the `.deb` installed by `dpkg -i`
# run inside it (so that postinst talks to a running systemd), and the test users logged in by
# `runuser -l` (a logind session each). Then the SystemdBoxTests suites (Tests/BiometricsVaultCLITests).
# The box shares /usr, /etc, /var and /home with this machine: what the package installs is removed at
# the end, and so are the test users' prints in fprintd's state directory.
#   bash scripts/extra-tests/75-systemd-box.sh [FILTER]   # FILTER: of the tests to run (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || { echo "75-systemd-box.sh needs root (it boots systemd and installs the package)"; exit 1; }
: "${BV_TEST_USER:?BV_TEST_USER is not set: run scripts/setup/30-fprintd-polkit.sh first}"
# Without TMPDIR: test.sh's is under the host's /tmp, which the box replaces with its own.
BOX=(env -u TMPDIR bash scripts/lib/systemd-box.sh)
LOG=$(mktemp)
# The sensor's socket and the package where both sides reach them: the host's /tmp is /run/host-tmp in the box.
SENSOR=$(mktemp -d /tmp/bv-box-sensor.XXXXXX)
chmod 777 "$SENSOR"
# The package's PAM service and polkit action are also what the CI setup installed for the host's tests,
# at the same paths (the box shares /etc and /usr): set aside before the package comes and goes, then
# put back, and the host's system bus told to read its configuration again, before the next step.
KEEP=$(mktemp -d)
SHARED=(/etc/pam.d/biometrics-vault /usr/share/polkit-1/actions/io.github.biometricsvault.policy)
for file in "${SHARED[@]}"; do
    if [ -e "$file" ]; then install -D -m 644 "$file" "$KEEP$file"; rm -f "$file"; fi
done
finish() {
    if "${BOX[@]}" status | grep -q '^pid'; then
        "${BOX[@]}" run sh -c 'dpkg -s biometrics-vault >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive dpkg -P biometrics-vault >/dev/null' || true
        for user in "$BV_TEST_USER" "${BV_TEST_OTHER_USER:-}"; do
            [ -n "$user" ] && "${BOX[@]}" run fprintd-delete "$user" >/dev/null 2>&1 || true
        done
    fi
    "${BOX[@]}" stop
    dpkg -s biometrics-vault >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive dpkg -P biometrics-vault >/dev/null
    for file in "${SHARED[@]}"; do
        [ -e "$KEEP$file" ] && install -D -m 644 "$KEEP$file" "$file"
    done
    [ -S /run/dbus/system_bus_socket ] && dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.ReloadConfig >/dev/null 2>&1
    rm -rf "$SENSOR" "$LOG" "$KEEP"
}
trap finish EXIT

# The test user's graphical session: a display and the desktop's notification server (the prompter's
# tests; scripts/lib/box-desktop).
need=()
for pkg in xvfb dunst; do dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg"); done
if [ "${#need[@]}" -gt 0 ]; then
    # shellcheck source=../lib/apt.sh
    source scripts/lib/apt.sh
    apt_update_once
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The release build 70-deb.sh (and CI's background build) made: packaging it again takes seconds.
DEB=$(bash scripts/package-deb.sh 2>/dev/null | tail -n 1)
[ -f "$DEB" ] || { echo "scripts/package-deb.sh made no .deb"; exit 1; }
# The box sees no other host directory under /tmp or /var/tmp (a checkout may be there): the package goes
# next to the sensor, and DEB is its path inside.
cp "$DEB" "$SENSOR/"
DEB=/run/host-tmp/${SENSOR#/tmp/}/$(basename "$DEB")
"${BOX[@]}" start >/dev/null
# A container image's /usr/sbin/policy-rc.d (exit 101: "start and stop nothing") would keep the
# maintainer scripts from stopping the service, as on no desktop: inside the box it says yes.
"${BOX[@]}" run sh -c "
    set -e
    if [ -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 0\n' > /run/policy-rc.d && chmod 755 /run/policy-rc.d
        mount --bind /run/policy-rc.d /usr/sbin/policy-rc.d
    fi
    mkdir -p /run/systemd/system/fprintd.service.d
    cat > /run/systemd/system/fprintd.service.d/virtual.conf <<EOF
[Service]
Environment=FP_VIRTUAL_DEVICE_STORAGE=/run/host-tmp/${SENSOR#/tmp/}/fpv.sock FP_DRIVERS_WHITELIST=virtual_device_storage
UMask=0000
ReadWritePaths=/run/host-tmp/${SENSOR#/tmp/}
EOF
    systemctl daemon-reload
    DEBIAN_FRONTEND=noninteractive dpkg -i '$DEB' >/dev/null
    systemctl is-system-running"
echo "systemd box: $("${BOX[@]}" status); installed $(basename "$DEB")"
# The test user's desktop, in a logind session that stays for the whole step (its user manager with it):
# Xvfb, dunst and the package's prompter unit (scripts/lib/box-desktop/start.sh). dunst logs what it
# shows in DESKTOP/out/shown.log.
DESKTOP=$SENSOR/desktop
cp -r scripts/lib/box-desktop "$DESKTOP"
mkdir -m 777 "$DESKTOP/out"
sed -i "s|@DIR@|/run/host-tmp/${DESKTOP#/tmp/}|g" "$DESKTOP/dunstrc"
chmod -R a+rX "$DESKTOP"
"${BOX[@]}" run systemd-run --unit=box-desktop-session --collect -q runuser -l "$BV_TEST_USER" -c 'exec sleep infinity'
"${BOX[@]}" run runuser -l "$BV_TEST_USER" -c "sh /run/host-tmp/${DESKTOP#/tmp/}/start.sh" \
    || { echo "the test user's desktop did not start"; exit 1; }

export BV_SYSTEMD_BOX_PID BV_BOX_FPRINT_SOCKET=$SENSOR/fpv.sock BV_BOX_DEB=$DEB BV_BOX_DESKTOP=$DESKTOP
BV_SYSTEMD_BOX_PID=$(cat /run/systemd-box/pid)
swift test --skip-build --filter "BiometricsVaultCLITests.SystemdBoxTests${1:+.*$1}" > "$LOG" 2>&1 \
    || { grep '✘' "$LOG" | cut -c1-1500 | head -n 80; tail -n 60 "$LOG"; exit 1; }
tail -n 3 "$LOG"
[ -z "${1:-}" ] || exit 0
# The suites run only in this step: each test must have run rather than been skipped.
for name in aCallActivatesTheUnitWithEveryLineOfItsHardening theServiceExitsWhenIdleAndTheNextCallStartsItAgain \
    restartsAndKillsDuringUpdatesLoseNothingAcknowledged theAuditIsInTheJournalAndInAudit \
    theJournalOfOneRunHoldsOnlyTheServicesOwnLines plainAndProtectedItemsAreKeptAndAWrongFingerGetsNothing \
    theLockoutEndsWithThePasswordThroughPolkit upgradesKeepItemsRemovalStopsTheServiceAndPurgeRemovesTheState \
    aWindowServesItsLogindSessionAndItsTerminalOnly 'aLockOrASuspendClosesTheWindow(closer:)' \
    'theEndOfTheLogindSessionClosesTheWindow(ending:)' theFirstSecretToolCallStartsTheUserUnitAndARestartKeepsTheItems \
    theSessionsLockClosesTheProvidersWindows aCheckWithoutATerminalIsShownOnTheDesktopUntilItEnds \
    cancelOnTheNotificationEndsTheCheckAtOnce aCheckNothingWouldShowIsRefusedAtOnce aSecondPrompterIsAuditedAndAnnounced \
    secretToolWithoutATerminalIsShownNamingIt gitWithoutATerminalIsShownNamingIt \
    anSSHSignatureThroughTheSocketUnitIsShownNamingWhatIsSigned; do
    [[ $name == *")" ]] || name="$name()"
    grep -F "Test $name " "$LOG" | grep -q ' passed after' || { echo "the systemd box test $name did not run"; exit 1; }
done
