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

# The run's temporary files go to a directory of their own, removed at the end with everything in it:
# SwiftPM leaves its TemporaryDirectory.* and lock files in $TMPDIR at every build (about 100 a run), and
# nothing a test forgot can outlive the run. Sticky and world-writable like /tmp: the test users write
# there too, and the file store accepts such a parent as it accepts /tmp.
RUN_TMP=$(mktemp -d /tmp/bv-run.XXXXXX)
chmod 1777 "$RUN_TMP"
export TMPDIR=$RUN_TMP

# The session bus, keyring and software TPMs the setup scripts start for this run are stopped at the end,
# and their directories in /tmp (a keyring holding test credentials) removed.
trap 'bash scripts/stop-daemons.sh; rm -rf "$RUN_TMP"' EXIT

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

# Where the daemons are mandatory (CI), every test runs: the only skips allowed are of tests that an
# extra step above runs instead, whose reason names that script (the fingerprint CLI suite, the
# non-root permission test). Printed only when it fails, so the summary above stays the last line.
if [ "${BV_REQUIRE_DAEMONS:-0}" = 1 ]; then
    unexpected=$(sed 's/\x1b\[[0-9;]*m//g' .build-ci/swift-test.log | grep ' skipped' | grep -v 'scripts/extra-tests/' || true)
    if [ -n "$unexpected" ]; then
        echo "tests skipped in a run where every test must run:"
        echo "$unexpected"
        exit 1
    fi
fi
