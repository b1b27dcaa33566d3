#!/usr/bin/env bash
# Type-checks the Apple backend (Keychain + LocalAuthentication) on Linux: compiles
# Sources/BiometricsVaultApple against the API-shape stubs in Stubs/ with APPLE_SDK_STUBS defined, every
# warning an error (a deprecated Apple API is a failure). Then checks that the shipped Apple target
# still compiles to nothing here. What this cannot check (availability, runtime behaviour, entitlements):
# Docs/Apple.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=.build-apple-check
swift build --scratch-path "$scratch" --target BiometricsVaultAppleCheck -Xswiftc -warnings-as-errors

swift build --scratch-path "$scratch" --target BiometricsVaultApple
# The objects of the current sources only (a stale object of a deleted file must not count).
objects=""
for source in Sources/BiometricsVaultApple/*.swift; do
    objects="$objects $scratch/debug/BiometricsVaultApple.build/$(basename "$source").o"
done
# The toolchain ships llvm-nm beside swift; binutils' nm works too.
nm_tool="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-nm"
[ -x "$nm_tool" ] || nm_tool=nm
# shellcheck disable=SC2086
defined=$("$nm_tool" --defined-only $objects | grep -c ' [TDBR] ' || true)
if [ "$defined" -ne 0 ]; then
    echo "BiometricsVaultApple defines $defined symbols on Linux; its files must be wholly inside #if canImport(Security) || APPLE_SDK_STUBS" >&2
    exit 1
fi
echo "Apple backend type-checks against the stubs; the shipped Apple target is empty on Linux."
