#!/usr/bin/env bash
# The README's main-job command: sets up a fresh Debian machine and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift run -c release VaultWalkthrough
