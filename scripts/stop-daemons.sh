#!/usr/bin/env bash
# Stops what scripts/setup/20-secret-service.sh, 21-keepassxc.sh, 22-kwallet.sh, 40-swtpm.sh and
# 50-docker-registry.sh started for one run, and removes their
# directories in /tmp: the keyring file there holds test credentials, the TPM state the seeds they were
# sealed under. Reads the variables the setup scripts appended to $BV_ENV_FILE (or the environment).
# The system bus, polkitd and fprintd (30-fprintd-polkit.sh) are system daemons, reused by later runs.
#   bash scripts/stop-daemons.sh
set -uo pipefail
if [ -n "${BV_ENV_FILE:-}" ] && [ -s "$BV_ENV_FILE" ]; then
    set -a
    # shellcheck disable=SC1090
    source "$BV_ENV_FILE"
    set +a
fi

stop_sandbox() { # directory pattern: kill the PIDs recorded in it, then remove it
    local dir=$1 pattern=$2 pidfile pid
    # Only a directory of the setup scripts' own layout (mktemp under /tmp with their prefix).
    case "$dir" in $pattern) ;; *) return 0 ;; esac
    [ -d "$dir" ] || return 0
    for pidfile in "$dir"/*.pid; do
        [ -s "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        # KeePassXC takes SIGTERM to quit and may never finish once its bus is gone.
        kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$dir"
}

stop_sandbox "${BV_SECRET_SERVICE_SANDBOX:-}" '/tmp/bv-secret-service.*'
stop_sandbox "${BV_DOCKER_REGISTRY_SANDBOX:-}" '/tmp/bv-docker-registry.*'
stop_sandbox "${BV_KEEPASSXC_SANDBOX:-}" '/tmp/bv-keepassxc.*'
stop_sandbox "${BV_KWALLET_SANDBOX:-}" '/tmp/bv-kwallet.*'
tcti_path=${BV_TPM_TCTI:-}
tcti_path=${tcti_path#swtpm:path=}
[ -n "$tcti_path" ] && stop_sandbox "$(dirname "$tcti_path")" '/tmp/bv-swtpm-ci.*'
exit 0
