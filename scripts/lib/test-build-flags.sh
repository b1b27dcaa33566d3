# Sourced by scripts/test.sh, scripts/stress.sh and Fuzz/build-flags.sh: flags of every build CI runs tests
# from. C code is optimised (-O1) instead of a debug build's -O0: BoringSSL, inside swift-crypto, derives
# the file store's passphrase key (scrypt, N = 2^15) in 0.14 s of CPU at -O1 and 0.86 s at -O0 (1.12 s
# with ASan), and the serialized TPM suite derives it one test after another. Swift code stays unoptimised,
# with its checks; BoringSSL compiles about 13% longer. A build folder built with other flags is rebuilt
# whole, so every build of the same folder passes these.
#
# Line tables as the only debug information: sanitizer reports and backtraces still name file and line,
# and the compiler and linker write less. (The index store stays: SwiftPM finds the tests on Linux in it.)
BV_BASE_BUILD_FLAGS=(-Xcc -O1 -Xswiftc -gline-tables-only -Xcc -gline-tables-only)

# AddressSanitizer (with LeakSanitizer) and libFuzzer's coverage instrumentation: the flags of the fuzz
# targets (scripts/fuzz.sh), and of every build of scripts/test.sh, which runs the whole suite, the fuzz
# targets and the stress workers from one such build instead of compiling a plain and an ASan build. The
# instrumentation only counts edges and records comparisons; outside the fuzz targets (which link
# libFuzzer) the sanitizer runtime's no-op hooks take them.
#
# libFuzzer itself: BV_LIBFUZZER switches the fuzz targets' driver on (Fuzz/FuzzSupport), and the linker
# is given the toolchain's libFuzzer archive (the variant without a `main`, which SwiftPM's executables
# have) and the C++ library it is written against. Every link of the build gets both, but an archive
# only gives a program the parts it calls: only the fuzz targets call `LLVMFuzzerRunDriver`. The manifest
# carries no linker flag for it, so the package stays usable as a dependency.
bv_libfuzzer_archive="$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer_no_main-$(uname -m).a"
BV_ASAN_BUILD_FLAGS=(
    --sanitize=address
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
    -Xswiftc -DBV_LIBFUZZER -Xlinker "$bv_libfuzzer_archive" -Xlinker -lstdc++
    "${BV_BASE_BUILD_FLAGS[@]}"
)

# BV_TEST_SANITIZER=address (scripts/test.sh sets it) makes the test builds those ASan builds.
if [ "${BV_TEST_SANITIZER:-}" = address ]; then
    BV_TEST_BUILD_FLAGS=("${BV_ASAN_BUILD_FLAGS[@]}")
else
    BV_TEST_BUILD_FLAGS=("${BV_BASE_BUILD_FLAGS[@]}")
fi
