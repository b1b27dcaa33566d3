#!/usr/bin/env bash
# Brings up two software TPMs (swtpm, the real TPM 2.0 command protocol) for BiometricsVaultTPM's tests,
# no root or kernel module needed: two state directories are two different TPMs (different seeds), so
# a store sealed on the first must not open on the second.
# Installs swtpm, swtpm-tools, tpm2-tools (cross-checks in tests) and libtss2-dev (also in install-deps).
# Appends BV_TPM_TCTI, BV_TPM_TCTI_SECOND and BV_SWTPM to $BV_ENV_FILE. Tests that lock a TPM out or
# take it away start their own instances (Tests/BiometricsVaultTPMTests/SoftwareTPM.swift).
# Re-runnable: each run starts its own instances; those of earlier runs whose PID is gone are removed.
# Facts: shared reference "tpm2-swtpm.md".
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in swtpm swtpm-tools tpm2-tools libtss2-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# tidy up after earlier runs whose TPMs are gone (a running one may serve another test run)
for old in /tmp/bv-swtpm-ci.*; do
    [ -d "$old" ] || continue
    alive=0
    for pid in "$old"/*.pid; do [ -s "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null && alive=1; done
    [ "$alive" -eq 0 ] && rm -rf "$old"
done

SANDBOX=$(mktemp -d /tmp/bv-swtpm-ci.XXXXXX)
tctis=()
for name in first second; do
    mkdir -p "$SANDBOX/$name"
    # Unix sockets: no port to collide with other runs; the swtpm TCTI finds the control socket at
    # PATH.ctrl. not-need-init,startup-clear: ready at once, no TPM2_Startup from clients.
    swtpm socket --tpm2 --tpmstate dir="$SANDBOX/$name" \
        --server type=unixio,path="$SANDBOX/$name.sock" --ctrl type=unixio,path="$SANDBOX/$name.sock.ctrl" \
        --flags not-need-init,startup-clear --daemon --pid file="$SANDBOX/$name.pid" --log file="$SANDBOX/$name.log"
    tcti="swtpm:path=$SANDBOX/$name.sock"
    # smoke test: the TPM answers and holds no transient object
    TPM2TOOLS_TCTI=$tcti tpm2_getcap properties-variable >/dev/null
    test -z "$(TPM2TOOLS_TCTI=$tcti tpm2_getcap handles-transient)"
    tctis+=("$tcti")
done

{
    echo "BV_TPM_TCTI=${tctis[0]}"
    echo "BV_TPM_TCTI_SECOND=${tctis[1]}"
    echo "BV_SWTPM=$(command -v swtpm)"
} >> "$ENV_FILE"
echo "swtpm: ${tctis[0]} and ${tctis[1]} (pids $(cat "$SANDBOX/first.pid") $(cat "$SANDBOX/second.pid"))"
