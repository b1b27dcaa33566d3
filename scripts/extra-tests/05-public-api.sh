#!/usr/bin/env bash
# The public API against its committed baseline, scripts/api/public-api.txt: every public declaration
# and conformance of the modules an app can import (scripts/api/dump-public-api.sh lists them), read from
# the run's build. Any difference, an addition as much as a removal, fails the run: a change to what
# apps see is made on purpose, and shows in the baseline's diff. The Apple build's BiometricsVaultApple is
# read from the Apple-stubs check target of the same build (a target of the package, built with it).
#   bash scripts/extra-tests/05-public-api.sh [BUILD_BIN_DIR]    (default: `swift build --show-bin-path`,
#                                                                  built first if the modules are missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
baseline=scripts/api/public-api.txt
bin=${1:-$(swift build --show-bin-path)}
if [ $# -eq 0 ] && { [ ! -e "$bin/Modules/BiometricsVault.swiftmodule" ] \
        || [ ! -e "$bin/Modules/BiometricsVaultServiceDaemon.swiftmodule" ] \
        || [ ! -e "$bin/Modules/BiometricsVaultAppleCheck.swiftmodule" ]; }; then
    # Run on its own, before any build: the same flags as the test build, so the folder is not rebuilt.
    # shellcheck source=../lib/test-build-flags.sh
    source scripts/lib/test-build-flags.sh
    swift build "${BV_TEST_BUILD_FLAGS[@]}"
fi
current=$(mktemp)
trap 'rm -f "$current"' EXIT
bash scripts/api/dump-public-api.sh "$bin" > "$current"
if ! diff -u --label "$baseline (committed)" --label "public API of this build" "$baseline" "$current"; then
    echo "!! the public API differs from $baseline (above: + is new in this build, - is gone)."
    echo "!! If the change is meant, update the baseline and commit it with the change:"
    echo "!!     bash scripts/api/dump-public-api.sh > $baseline"
    exit 1
fi
grep '^## ' "$baseline"
echo "public API unchanged: $(grep -c '^[^#]' "$baseline") lines, as in $baseline"
