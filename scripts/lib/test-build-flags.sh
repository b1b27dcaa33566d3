# Sourced by scripts/test.sh, scripts/stress.sh and Fuzz/build-flags.sh: flags of every build CI runs tests
# from. C code is optimised (-O1) instead of a debug build's -O0: BoringSSL, inside swift-crypto, derives
# the file store's passphrase key (scrypt, N = 2^15) in 0.14 s of CPU at -O1 and 0.86 s at -O0 (1.12 s
# with ASan), and the serialized TPM suite derives it one test after another. Swift code stays unoptimised,
# with its checks; BoringSSL compiles about 13% longer. A build folder built with other flags is rebuilt
# whole, so every build of the same folder passes these.
#
# Line tables as the only debug information: sanitizer reports and backtraces still name file and line,
# and the compiler and linker write less. (The index store stays: SwiftPM finds the tests on Linux in it.)
BV_TEST_BUILD_FLAGS=(-Xcc -O1 -Xswiftc -gline-tables-only -Xcc -gline-tables-only)
