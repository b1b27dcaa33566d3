#!/usr/bin/env bash
# Other people's Secret Service clients and their own test suites, ready to run against whatever owns
# org.freedesktop.secrets on a session bus (scripts/lib/secret-service-clients.sh runs them; nothing here
# needs a bus):
#   - git-credential-libsecret, built from the installed git's contrib sources (/usr/share/doc/git/contrib/
#     credential/libsecret; taken from the git .deb when the image dropped /usr/share/doc) into .build-ci,
#     not /usr: git's t0303 runs it from PATH (BV_GIT_SUITE_DIR of 50-git-credential-suite.sh);
#   - docker-credential-secretservice (Debian's golang-docker-credential-helpers), for skopeo's credHelpers
#     (the registry of 50-docker-registry.sh);
#   - python SecretStorage's own tests: tests/ of its sdist from PyPI (pinned: BV_SECRETSTORAGE_VERSION),
#     with a venv of Debian's python3 that has the same SecretStorage installed (jeepney, cryptography).
# Appends BV_GIT_LIBSECRET_DIR, BV_DOCKER_SECRETSERVICE_HELPER, BV_SECRETSTORAGE_TESTS and
# BV_SECRETSTORAGE_PYTHON to $BV_ENV_FILE. Re-runnable: the helper is rebuilt only for another git version,
# the sdist and venv are reused for the same SecretStorage version. About 20 s on a fresh machine (packages,
# the venv's wheels from PyPI), 1 s once done.
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
STATE=${BV_SECRET_SERVICE_CLIENTS_STATE:-$PWD/.build-ci/secret-service-clients}
SECRETSTORAGE_VERSION=${BV_SECRETSTORAGE_VERSION:-3.5.0}
mkdir -p "$STATE"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

# 1. packages (install only what is missing). The lock timeout: another run's apt may hold dpkg's lock.
# shellcheck source=../lib/apt.sh
source scripts/lib/apt.sh
export DEBIAN_FRONTEND=noninteractive
need=()
for pkg in git gcc make pkg-config libsecret-1-dev libsecret-tools libglib2.0-bin golang-docker-credential-helpers \
    python3 python3-venv; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
    apt_update_once
    $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# 2. git-credential-libsecret of the installed git (its contrib source is in the git package's docs).
GIT_VERSION=$(dpkg-query -W -f='${Version}' git)
LIBSECRET_DIR=$STATE/git-libsecret/bin
if [ ! -x "$LIBSECRET_DIR/git-credential-libsecret" ] || [ "$(cat "$STATE/git-libsecret/version" 2>/dev/null)" != "$GIT_VERSION" ]; then
    rm -rf "$STATE/git-libsecret"; mkdir -p "$STATE/git-libsecret/src" "$LIBSECRET_DIR"
    CONTRIB=/usr/share/doc/git/contrib/credential/libsecret
    if [ ! -e "$CONTRIB/git-credential-libsecret.c" ] && [ ! -e "$CONTRIB/git-credential-libsecret.c.gz" ]; then
        # dpkg's path-exclude of /usr/share/doc (minimal images): the same files from the .deb itself.
        (cd "$STATE/git-libsecret" && apt-get download -qq "git=$GIT_VERSION" >/dev/null \
            && dpkg-deb --fsys-tarfile git_*.deb | tar -x --wildcards "./usr/share/doc/git/contrib/credential/libsecret/*" \
            && rm -f git_*.deb)
        CONTRIB=$STATE/git-libsecret$CONTRIB
    fi
    cp "$CONTRIB"/* "$STATE/git-libsecret/src/"
    gunzip -f "$STATE"/git-libsecret/src/*.gz 2>/dev/null || true
    make -s -C "$STATE/git-libsecret/src" >"$STATE/git-libsecret/build.log" 2>&1 \
        || { cat "$STATE/git-libsecret/build.log"; exit 1; }
    install -m 755 "$STATE/git-libsecret/src/git-credential-libsecret" "$LIBSECRET_DIR/"
    echo "$GIT_VERSION" > "$STATE/git-libsecret/version"
fi
# Smoke test (no bus needed): an unknown action is ignored, as git's helper protocol wants.
"$LIBSECRET_DIR/git-credential-libsecret" bv-no-such-action </dev/null

# 3. docker-credential-secretservice (the package's binary; `version` needs no bus)
DOCKER_HELPER=/usr/bin/docker-credential-secretservice
"$DOCKER_HELPER" version >/dev/null

# 4. SecretStorage: its sdist's tests (run_tests.py imports the sdist's own package, next to tests/) and a
#    venv of Debian's python3 with the same version installed from PyPI (its dependencies as wheels).
TREE=$STATE/secretstorage-$SECRETSTORAGE_VERSION
VENV=$STATE/secretstorage-venv
if [ ! -f "$TREE/tests/run_tests.py" ]; then
    rm -rf "$TREE" "$STATE/sdist"; mkdir -p "$STATE/sdist"
    /usr/bin/python3 -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
        -d "$STATE/sdist" "secretstorage==$SECRETSTORAGE_VERSION"
    tar -xzf "$STATE"/sdist/*.tar.gz -C "$STATE"
    # The sdist unpacks as secretstorage-X or SecretStorage-X, depending on the release.
    unpacked=$(find "$STATE" -maxdepth 1 -iname "secretstorage-$SECRETSTORAGE_VERSION" ! -path "$TREE" | head -1)
    [ -z "$unpacked" ] || mv "$unpacked" "$TREE"
    rm -rf "$STATE/sdist"
    test -f "$TREE/tests/run_tests.py"
fi
if [ "$("$VENV/bin/python" -c 'import secretstorage, importlib.metadata as m; print(m.version("secretstorage"))' 2>/dev/null)" \
    != "$SECRETSTORAGE_VERSION" ]; then
    rm -rf "$VENV"
    /usr/bin/python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q --disable-pip-version-check "secretstorage==$SECRETSTORAGE_VERSION"
fi
"$VENV/bin/python" -c 'import secretstorage, jeepney, cryptography'

{
    echo "BV_GIT_LIBSECRET_DIR=$LIBSECRET_DIR"
    echo "BV_DOCKER_SECRETSERVICE_HELPER=$DOCKER_HELPER"
    echo "BV_SECRETSTORAGE_TESTS=$TREE/tests"
    echo "BV_SECRETSTORAGE_PYTHON=$VENV/bin/python"
} >> "$ENV_FILE"
echo "secret service clients: git-credential-libsecret (git $GIT_VERSION) in $LIBSECRET_DIR, $DOCKER_HELPER," \
    "SecretStorage $SECRETSTORAGE_VERSION tests in $TREE/tests"
