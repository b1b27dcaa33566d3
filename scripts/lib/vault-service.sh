# Sourced: installs the vault service (Resources/linux/service) for the CI, pointing D-Bus activation at
# a given build of the CLI, and removes it again. Without systemd (as in CI) the system dbus-daemon's
# setuid helper starts it as its user, as on a machine where the package is installed without systemd.
#   vault_service_install BINARY     # as root; BINARY is the biometrics-vault to run as the service
#   vault_service_uninstall
# Where swtpm is installed, the service gets a TPM of its own (a swtpm run as the service's user, its
# socket in a directory only that user can open), as /dev/tpmrm0 is to a service in the `tss` group.
# The ASan build writes its reports where the run collects them (ASAN_OPTIONS of the caller): the
# activation helper clears the environment, so a small launcher sets it again.

# shellcheck source=ci-polkitd.sh
source "$(dirname "${BASH_SOURCE[0]}")/ci-polkitd.sh"

VAULT_SERVICE_LAUNCHER=/usr/local/libexec/biometrics-vault-ci-service
VAULT_SERVICE_TPM=/var/lib/biometrics-vault-ci-tpm
VAULT_SERVICE_FILES=(
    /usr/share/dbus-1/system.d/io.github.biometricsvault.Vault1.conf
    /usr/share/dbus-1/system-services/io.github.biometricsvault.Vault1.service
    /usr/share/polkit-1/actions/io.github.biometricsvault.vault-service.policy
    /usr/share/polkit-1/rules.d/50-biometrics-vault.rules
    "$VAULT_SERVICE_LAUNCHER"
    /etc/biometrics-vault/service.conf
)

vault_service_reload_bus() {
    dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.ReloadConfig >/dev/null
}

vault_service_install() {
    local binary=$1 resources=Resources/linux/service
    getent group biometrics-vault >/dev/null || groupadd --system biometrics-vault
    id biometrics-vault >/dev/null 2>&1 || useradd --system --gid biometrics-vault --home-dir /var/lib/biometrics-vault \
        --no-create-home --shell /usr/sbin/nologin --comment "BiometricsVault vault service" biometrics-vault
    vault_service_stop   # a service or swtpm an earlier run left, and its items: each run starts empty
    rm -rf /var/lib/biometrics-vault "$VAULT_SERVICE_TPM"
    install -d -m 700 -o biometrics-vault -g biometrics-vault /var/lib/biometrics-vault
    install -d -m 755 -o biometrics-vault -g biometrics-vault /run/biometrics-vault
    local tcti=""
    if command -v swtpm >/dev/null; then
        install -d -m 700 -o biometrics-vault -g biometrics-vault "$VAULT_SERVICE_TPM" "$VAULT_SERVICE_TPM/state"
        runuser -u biometrics-vault -- swtpm socket --tpm2 --tpmstate dir="$VAULT_SERVICE_TPM/state" \
            --server type=unixio,path="$VAULT_SERVICE_TPM/tpm.sock" --ctrl type=unixio,path="$VAULT_SERVICE_TPM/tpm.sock.ctrl" \
            --flags not-need-init,startup-clear --daemon --pid file="$VAULT_SERVICE_TPM/swtpm.pid"
        tcti="swtpm:path=$VAULT_SERVICE_TPM/tpm.sock"
    fi
    install -d -m 755 /usr/share/dbus-1/system.d /usr/share/dbus-1/system-services /usr/local/libexec \
        /usr/share/polkit-1/actions /usr/share/polkit-1/rules.d
    install -m 644 "$resources/io.github.biometricsvault.Vault1.conf" /usr/share/dbus-1/system.d/
    install -m 644 "$resources/io.github.biometricsvault.vault-service.policy" /usr/share/polkit-1/actions/
    install -m 644 "$resources/50-biometrics-vault.rules" /usr/share/polkit-1/rules.d/
    # This machine is a headless one with a reader: its tests' programs run without a terminal and with
    # no desktop to show a prompt, which the service refuses by default. The systemd box's step runs the
    # package's default (a prompter in the test user's session) and checks that refusal.
    install -d -m 755 /etc/biometrics-vault
    printf '# CI: a headless machine with a fingerprint reader (Docs/VaultService.md)\nunseen-checks = allow\n' \
        > /etc/biometrics-vault/service.conf
    {
        echo '#!/bin/sh'
        printf 'export ASAN_OPTIONS=%q LSAN_OPTIONS=%q SWIFT_BACKTRACE=%q\n' \
            "${ASAN_OPTIONS:-}" "${LSAN_OPTIONS:-}" "${SWIFT_BACKTRACE:-}"
        [ -z "$tcti" ] || printf 'export BIOMETRICS_VAULT_TPM_TCTI=%q\n' "$tcti"
        printf 'exec %q service "$@"\n' "$binary"
    } > "$VAULT_SERVICE_LAUNCHER"
    chmod 755 "$VAULT_SERVICE_LAUNCHER"
    sed "s|^Exec=.*|Exec=$VAULT_SERVICE_LAUNCHER|" "$resources/io.github.biometricsvault.Vault1.service" \
        > /usr/share/dbus-1/system-services/io.github.biometricsvault.Vault1.service
    chmod 644 /usr/share/dbus-1/system-services/io.github.biometricsvault.Vault1.service
    vault_service_reload_bus
    vault_service_wait_for_polkit_rule
}

# Waits (3 s) until polkitd grants the service's user fprintd's verify, as the service's rule says. A
# polkitd re-reads its rules when a file changes, yet one that CI had started minutes before kept
# denying after the rule was installed, until it was started again: the polkitd CI started is started
# again, once. Nothing to wait for without polkitd.
vault_service_wait_for_polkit_rule() {
    command -v pkcheck >/dev/null && ci_polkitd_busy || return 0
    local probe attempt
    setpriv --reuid=biometrics-vault --regid=biometrics-vault --clear-groups sleep 120 &
    probe=$!
    for attempt in first again; do
        for _ in $(seq 30); do
            if pkcheck --action-id net.reactivated.fprint.device.verify --process "$probe" >/dev/null 2>&1; then
                kill "$probe" 2>/dev/null
                return 0
            fi
            sleep 0.1
        done
        if [ "$attempt" = again ] || ! ci_polkitd_ours; then break; fi
        echo "polkitd does not apply the vault service's rule: starting the polkitd CI started again"
        ci_polkitd_restart
    done
    kill "$probe" 2>/dev/null
    echo "polkitd does not grant the vault service's user fprintd's verify (/usr/share/polkit-1/rules.d/50-biometrics-vault.rules)"
    return 1
}

vault_service_stop() {
    pkill -KILL -u biometrics-vault 2>/dev/null || true
}

# The vault service's own swtpm's TCTI, empty without one.
vault_service_tcti() {
    [ -S "$VAULT_SERVICE_TPM/tpm.sock" ] && echo "swtpm:path=$VAULT_SERVICE_TPM/tpm.sock" || true
}

# A CI install an earlier run left (on a machine that was not fresh): removed, because with it the default
# store is the service and every step but 40-cli-vault-service.sh tests the other stores by default. Only
# an install whose activation runs the CI launcher: a packaged service is the machine owner's.
vault_service_remove_leftover() {
    grep -qs "^Exec=$VAULT_SERVICE_LAUNCHER\$" /usr/share/dbus-1/system-services/io.github.biometricsvault.Vault1.service \
        || [ -e "$VAULT_SERVICE_LAUNCHER" ] || return 0
    echo "removing the vault service an earlier run installed ($VAULT_SERVICE_LAUNCHER)"
    vault_service_uninstall
}

vault_service_uninstall() {
    vault_service_stop
    rm -f "${VAULT_SERVICE_FILES[@]}"
    rm -rf /var/lib/biometrics-vault /run/biometrics-vault "$VAULT_SERVICE_TPM"
    # Without a running system bus there is nothing to reload: the next one reads the files as they are.
    vault_service_reload_bus 2>/dev/null || [ ! -S /run/dbus/system_bus_socket ] || ! pgrep -x dbus-daemon >/dev/null \
        || vault_service_reload_bus
}
