#!/usr/bin/env bash
# OpenSSH's client and server for the SSH agent's tests (Tests/BiometricsVaultCLITests/
# VaultServiceSSHAgentTests.swift): ssh, ssh-add, ssh-keygen and the ssh-agent they are compared with, and
# sshd, which each test starts itself on the loopback with a configuration of its own. The package's start
# of a system-wide sshd is held back (policy-rc.d) while it installs: this script starts no sshd (a
# systemd that boots later, as the systemd box's, may start the package's unit).
# Appends BV_SSHD to $BV_ENV_FILE.
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh

need=()
for package in openssh-client openssh-server; do dpkg -s "$package" >/dev/null 2>&1 || need+=("$package"); done
if [ ${#need[@]} -gt 0 ]; then
    apt_update_once
    held=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod 755 /usr/sbin/policy-rc.d
        held=1
    fi
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    [ -z "$held" ] || $SUDO rm -f /usr/sbin/policy-rc.d
fi
# sshd's privilege separation directory, which its init script would have made.
$SUDO mkdir -p /run/sshd
$SUDO chmod 755 /run/sshd
/usr/sbin/sshd -V 2>&1 | head -1 || true
echo "BV_SSHD=/usr/sbin/sshd" >> "$ENV_FILE"
