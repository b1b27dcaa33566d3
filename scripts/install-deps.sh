#!/usr/bin/env bash
# Debian packages needed to build the package (the C libraries behind the Linux backends), and
# dpkg-dev for scripts/package-deb.sh (dpkg-shlibdeps computes the .deb's Depends).
# Each setup script installs what its daemons need on top of this.
set -euo pipefail
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
# shellcheck source=lib/apt.sh
source "$(dirname "$0")/lib/apt.sh"
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in pkg-config libsecret-1-dev libgcrypt20-dev libglib2.0-dev libpam0g-dev libtss2-dev strace dpkg-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
