#!/usr/bin/env bash
# git's own test suite for external credential helpers (t/t0303-credential-external.sh), ready to run
# against the INSTALLED git: only t/ of the source of the installed git's Debian package is unpacked
# (no build of git; test-lib.sh runs /usr/bin/git with GIT_TEST_INSTALLED=/usr/bin). test-lib.sh asks for
# three build products it does not use for t0303: GIT-BUILD-OPTIONS (written here with Debian's values),
# templates/blt (an empty template directory) and t/helper/test-tool, which here refuses to run, so a
# check that needed it would fail rather than pass unseen.
# Appends BV_GIT_SUITE_DIR (the unpacked tree) to $BV_ENV_FILE. Re-runnable: a tree already unpacked for
# the same git version is reused. About 30 s on a fresh machine (apt-get update with the deb-src index, an
# 8 MB download, the smoke run against git's own `store` helper).
set -euo pipefail
cd "$(dirname "$0")/../.."
ENV_FILE=${BV_ENV_FILE:-/dev/null}
STATE=${BV_GIT_SUITE_STATE:-$PWD/.build-ci/git-suite}
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

if ! dpkg -s git >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends git >/dev/null
fi
# The source of exactly the installed git (Debian's patches included), so the suite matches the binary.
VERSION=$(dpkg-query -W -f='${Version}' git)
UPSTREAM=${VERSION#*:}; UPSTREAM=${UPSTREAM%%-*}
TREE=$STATE/git-$UPSTREAM

if [ ! -f "$TREE/GIT-BUILD-OPTIONS" ]; then
    # Source packages come from the same mirror as the binaries: a deb-src copy of Debian's entries.
    SOURCES=/etc/apt/sources.list.d/bv-deb-src.sources
    if [ ! -f "$SOURCES" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
        sed -n '/^Types:/,$p' /etc/apt/sources.list.d/debian.sources | sed 's/^Types: deb$/Types: deb-src/' \
            | $SUDO tee "$SOURCES" >/dev/null
    elif [ ! -f "$SOURCES" ]; then
        SOURCES=/etc/apt/sources.list.d/bv-deb-src.list
        sed -n 's/^deb /deb-src /p' /etc/apt/sources.list | $SUDO tee "$SOURCES" >/dev/null
    fi
    $SUDO apt-get update -qq
    rm -rf "$STATE"; mkdir -p "$STATE/download"
    (cd "$STATE/download" && apt-get source --download-only -qq "git=$VERSION" >"$STATE/apt-source.log" 2>&1) \
        || { cat "$STATE/apt-source.log"; exit 1; }
    tar -xf "$STATE"/download/git_"$UPSTREAM".orig.tar.* -C "$STATE" --wildcards "git-$UPSTREAM/t/*"
    rm -rf "$STATE/download"
    cat > "$TREE/GIT-BUILD-OPTIONS" <<'OPTIONS'
SHELL_PATH='/bin/sh'
TEST_SHELL_PATH='/bin/sh'
PERL_PATH='/usr/bin/perl'
DIFF='diff'
PYTHON_PATH='/usr/bin/python3'
TAR='tar'
NO_CURL=''
NO_EXPAT=''
USE_LIBPCRE2='YesPlease'
NO_PERL=''
NO_PTHREADS=''
NO_PYTHON=''
NO_REGEX=''
NO_UNIX_SOCKETS=''
PAGER_ENV='LESS=FRX LV=-c'
SANITIZE_LEAK=''
SANITIZE_ADDRESS=''
X=''
NO_GETTEXT=''
OPTIONS
    mkdir -p "$TREE/templates/blt" "$TREE/t/helper"
    printf '#!/bin/sh\necho "test-tool: not built (this tree runs its tests against the installed git)" >&2\nexit 127\n' \
        > "$TREE/t/helper/test-tool"
    chmod +x "$TREE/t/helper/test-tool"
fi

# Smoke test: the suite runs against git's own `store` helper.
(cd "$TREE/t" && HOME=$STATE GIT_TEST_INSTALLED=/usr/bin GIT_TEST_CREDENTIAL_HELPER=store \
    sh t0303-credential-external.sh --root="$STATE/trash" >/dev/null)
rm -rf "$STATE/trash"

echo "BV_GIT_SUITE_DIR=$TREE" >> "$ENV_FILE"
echo "git credential suite: $TREE (git $VERSION)"
