#!/usr/bin/env bash
# ThreadSanitizer over the concurrency tests (a separate build folder: TSan objects differ).
set -euo pipefail
cd "$(dirname "$0")/../.."
swift test --sanitize=thread --scratch-path .build-tsan --filter "Concurrency"
