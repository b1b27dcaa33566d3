#!/usr/bin/env bash
# ThreadSanitizer over the concurrency tests, in a build folder of its own (TSan objects differ), through
# the small package Tests/ThreadSanitizer/Package.swift: it depends on BiometricsVaultTesting only, so this
# step compiles the core, the testing product and the tests instead of the whole package with swift-crypto.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --package-path Tests/ThreadSanitizer --sanitize=thread --scratch-path .build-tsan --build-tests
swift test --package-path Tests/ThreadSanitizer --skip-build --sanitize=thread --scratch-path .build-tsan
