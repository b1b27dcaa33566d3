#!/usr/bin/env bash
# A REAL container registry with password auth on 127.0.0.1, for the docker credential helper's round trip
# with real clients (DockerCredentialCLITests: `skopeo login` / `login --get-login` / `logout` through
# `credHelpers`): Debian's `docker-registry` (distribution 2.8) with an htpasswd file (bcrypt, apache2-utils'
# `htpasswd -B`), plain HTTP (the clients run with --tls-verify=false for localhost).
# Appends BV_DOCKER_REGISTRY (host:port), BV_DOCKER_REGISTRY_USER, BV_DOCKER_REGISTRY_PASSWORD_FILE and
# BV_DOCKER_REGISTRY_SANDBOX (stopped and removed by scripts/stop-daemons.sh) to $BV_ENV_FILE.
# Re-runnable: every run starts its own registry on a free port. About 50 s on a fresh machine (packages:
# skopeo and docker-registry are large Go binaries), 2 s once they are installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive

need=()
for pkg in docker-registry skopeo apache2-utils python3; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    # policy-rc.d: where an init system runs, the package must not start the system-wide registry on :5000.
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null; $SUDO chmod +x /usr/sbin/policy-rc.d
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    $SUDO rm -f /usr/sbin/policy-rc.d
fi

SANDBOX=$(mktemp -d /tmp/bv-docker-registry.XXXXXX)
chmod 755 "$SANDBOX"
USER_NAME=bv-ci-user
PASSWORD_FILE=$SANDBOX/password
head -c 18 /dev/urandom | base64 | tr -d '/+=' > "$PASSWORD_FILE"
chmod 644 "$PASSWORD_FILE"   # tests may run as another user
# The password goes on stdin (-i), never on a command line.
htpasswd -B -i -c "$SANDBOX/htpasswd" "$USER_NAME" < "$PASSWORD_FILE" 2>/dev/null
PORT=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$SANDBOX/config.yml" <<CONFIG
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $SANDBOX/data
http:
  addr: 127.0.0.1:$PORT
auth:
  htpasswd:
    realm: bv-ci
    path: $SANDBOX/htpasswd
CONFIG
setsid docker-registry serve "$SANDBOX/config.yml" > "$SANDBOX/registry.log" 2>&1 < /dev/null &
echo $! > "$SANDBOX/registry.pid"

# Up when /v2/ answers 401 (auth required); bounded.
for _ in $(seq 100); do
    status=$(/usr/bin/python3 - "$PORT" <<'PY' 2>/dev/null || true
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v2/", timeout=1)
    print(200)
except urllib.error.HTTPError as error:
    print(error.code)
PY
)
    [ "$status" = 401 ] && break
    sleep 0.1
done
[ "$status" = 401 ] || { echo "docker-registry did not come up:"; cat "$SANDBOX/registry.log"; exit 1; }

{
    echo "BV_DOCKER_REGISTRY=127.0.0.1:$PORT"
    echo "BV_DOCKER_REGISTRY_USER=$USER_NAME"
    echo "BV_DOCKER_REGISTRY_PASSWORD_FILE=$PASSWORD_FILE"
    echo "BV_DOCKER_REGISTRY_SANDBOX=$SANDBOX"
} >> "$ENV_FILE"
echo "docker registry: 127.0.0.1:$PORT (pid $(cat "$SANDBOX/registry.pid")), htpasswd user $USER_NAME, in $SANDBOX"
