#!/usr/bin/env bash
# The README's test command: sets up everything on a fresh Debian machine and runs every test.
#   bash scripts/test.sh
# With BV_REQUIRE_DAEMONS=1 (as in CI) a test that needs a daemon fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
export BV_ENV_FILE="${BV_ENV_FILE:-$PWD/.build-ci/env}"
mkdir -p "$(dirname "$BV_ENV_FILE")"
: > "$BV_ENV_FILE"

bash scripts/install-deps.sh

# Each setup script installs and starts one real component and appends the variables the tests need
# (bus addresses, socket paths, ...) to $BV_ENV_FILE.
for setup in scripts/setup/*.sh; do
    [ -e "$setup" ] || continue
    echo "== setup: $setup"
    bash "$setup"
done
set -a
# shellcheck disable=SC1090
source "$BV_ENV_FILE"
set +a

swift build --build-tests

# Extra runs (sanitizers, tests as a non-root user, fuzzing) before the final full run, so the last
# line printed is the test summary of the whole suite.
for extra in scripts/extra-tests/*.sh; do
    [ -e "$extra" ] || continue
    echo "== extra: $extra"
    bash "$extra"
done

swift test 2>&1 | tee .build-ci/swift-test.log
