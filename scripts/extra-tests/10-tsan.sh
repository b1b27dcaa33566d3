#!/usr/bin/env bash
# ThreadSanitizer over the core's concurrency tests, in a build folder of its own (TSan objects differ).
# BV_PACKAGE_SUBSET=core makes the manifest declare only the core, BiometricsVaultTesting and the core's
# tests (Package.swift), and building the test product alone leaves out the snippets, so this step compiles
# three modules instead of the whole package with swift-crypto.
set -euo pipefail
cd "$(dirname "$0")/../.."
export BV_PACKAGE_SUBSET=core
swift build --sanitize=thread --scratch-path .build-tsan --product BiometricsVaultPackageTests
swift test --skip-build --sanitize=thread --scratch-path .build-tsan --filter "Concurrency"
