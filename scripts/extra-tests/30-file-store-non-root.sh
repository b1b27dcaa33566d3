#!/usr/bin/env bash
# The encrypted file store's one test that needs an unprivileged user: root bypasses file permissions, so
# only here does "permission denied -> storeUnavailable with errno EACCES" run for real (it is skipped as
# root). The suite's other tests behave alike for any uid (or need root) and run in the whole-suite run.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then
    echo "not root: the normal run already is unprivileged; nothing to add"
    exit 0
fi
if ! command -v runuser >/dev/null; then
    echo "runuser is missing: the permission-denied tests cannot run as an unprivileged user"
    # Mandatory in CI: the EACCES test skips as root and runs only here.
    [ "${BV_REQUIRE_DAEMONS:-0}" = 1 ] && exit 1
    exit 0
fi
BUNDLE="$(swift build --show-bin-path)/BiometricsVaultPackageTests.xctest"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
chown nobody "$SCRATCH"
chmod 0700 "$SCRATCH"
runuser -u nobody -- env HOME="$SCRATCH" TMPDIR="$SCRATCH" XDG_DATA_HOME="$SCRATCH/data" \
    "$BUNDLE" --testing-library swift-testing --filter 'BiometricsVaultFileStoreTests.DiskSafetyTests/permissionDenied' 2>&1 | tee "$SCRATCH/log"
# The point of this run is the EACCES test, which skips as root: it must have run and passed here.
grep -q 'permission denied is storeUnavailable.*passed' "$SCRATCH/log" \
    || { echo "the permission-denied test did not run as an unprivileged user"; exit 1; }
