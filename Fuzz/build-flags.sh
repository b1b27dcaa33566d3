# Sourced by scripts/fuzz.sh: the AddressSanitizer build folder of the fuzz targets, with libFuzzer's
# coverage instrumentation (scripts/lib/test-build-flags.sh). scripts/test.sh points it at its own build
# folder (`BV_ASAN_SCRATCH=.build`), built with the same flags, so the fuzz targets are already built there.
# shellcheck source=../scripts/lib/test-build-flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/test-build-flags.sh"
BV_ASAN_SCRATCH="${BV_ASAN_SCRATCH:-.build-asan}"
BV_ASAN_FLAGS=(--scratch-path "$BV_ASAN_SCRATCH" "${BV_ASAN_BUILD_FLAGS[@]}")
