#!/usr/bin/env bash
# Runs the Linux authentication integration tests (real fprintd, PAM, polkit) as the NON-ROOT test user
# that scripts/setup/30-fprintd-polkit.sh created: fprintd and polkit always authorize uid 0, so the
# denial tests (another user's prints), the polkit agent tests (pkttyagent answering with the user's
# password) and PAM as an unprivileged caller are only real here. The whole-suite run (as root) runs the
# same tests again; those that need a non-root caller return early there.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BV_TEST_USER:?BV_TEST_USER is not set: run scripts/setup/30-fprintd-polkit.sh first}"
: "${BV_FPRINT_SOCKET:?BV_FPRINT_SOCKET is not set: run scripts/setup/30-fprintd-polkit.sh first}"

BIN_DIR=$(swift build --show-bin-path ${BV_SCRATCH_PATH:+--scratch-path "$BV_SCRATCH_PATH"})
TESTS="$BIN_DIR/BiometricsVaultPackageTests.xctest"
[ -x "$TESTS" ] || { echo "test bundle $TESTS not built (swift build --build-tests)"; exit 1; }

# The test user must be able to reach the bundle (it only reads and runs it).
dir=$BIN_DIR
while [ "$dir" != "/" ]; do
    runuser -u "$BV_TEST_USER" -- test -x "$dir" || { echo "$BV_TEST_USER cannot enter $dir"; exit 1; }
    dir=$(dirname "$dir")
done

USER_HOME=$(getent passwd "$BV_TEST_USER" | cut -d: -f6)
STATE=$(runuser -u "$BV_TEST_USER" -- mktemp -d)
trap 'rm -rf "$STATE"' EXIT
cd /tmp   # a directory the test user may stand in
runuser -u "$BV_TEST_USER" -- env -i \
    PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$USER_HOME" USER="$BV_TEST_USER" LOGNAME="$BV_TEST_USER" \
    XDG_STATE_HOME="$STATE" BV_REQUIRE_DAEMONS="${BV_REQUIRE_DAEMONS:-0}" \
    BV_FPRINT_SOCKET="$BV_FPRINT_SOCKET" BV_TEST_USER="$BV_TEST_USER" \
    BV_TEST_PASSWORD="${BV_TEST_PASSWORD:-}" BV_TEST_OTHER_USER="${BV_TEST_OTHER_USER:-}" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}" LSAN_OPTIONS="${LSAN_OPTIONS:-}" SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-}" \
    "$TESTS" --testing-library swift-testing --filter LinuxAuthIntegration
