# Sourced by scripts/fuzz.sh and scripts/extra-tests/50-asan.sh: ONE AddressSanitizer build folder serves
# both the fuzz targets and the ASan test run, so CI compiles swift-crypto (BoringSSL) with ASan once.
# That is why the test run also carries libFuzzer's coverage instrumentation: SwiftPM keys a build folder
# by its flags, and different flags would rebuild everything. The instrumentation only counts edges and
# records comparisons; without libFuzzer linked in, the sanitizer runtime's no-op hooks take them.
# The C code is optimised as in the other test builds (scripts/lib/test-build-flags.sh).
# shellcheck source=../scripts/lib/test-build-flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/test-build-flags.sh"
BV_ASAN_SCRATCH="${BV_ASAN_SCRATCH:-.build-asan}"
BV_ASAN_FLAGS=(
    --scratch-path "$BV_ASAN_SCRATCH"
    --sanitize=address
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
    "${BV_TEST_BUILD_FLAGS[@]}"
)
