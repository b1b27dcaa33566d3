#!/usr/bin/env bash
# Regenerates the CLI's man page and shell completion scripts from the command definitions
# (swift-argument-parser's generate-manual plugin and --generate-completion-script) into Docs/cli/.
# The outputs are committed; re-run after changing a command, flag or help text.
#   bash scripts/generate-cli-docs.sh          # SCRATCH=.build-xyz to build elsewhere
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
OUT=Docs/cli
# A stable date (the last change to the CLI's sources), so regenerating without changes changes nothing.
DATE=$(git log -1 --format=%cs -- Sources/biometrics-vault 2>/dev/null || true)
DATE=${DATE:-$(date -u +%F)}

swift build --scratch-path "$SCRATCH" --product biometrics-vault 2>&1 | tail -n 1
BIN="$(swift build --scratch-path "$SCRATCH" --show-bin-path)/biometrics-vault"

mkdir -p "$OUT/completions"
"$BIN" --generate-completion-script bash > "$OUT/completions/biometrics-vault.bash"
"$BIN" --generate-completion-script zsh > "$OUT/completions/_biometrics-vault"
"$BIN" --generate-completion-script fish > "$OUT/completions/biometrics-vault.fish"

swift package --scratch-path "$SCRATCH" --allow-writing-to-package-directory \
    generate-manual --configuration debug --date "$DATE" --section 1 --authors "BiometricsVault contributors" 2>&1 | tail -n 1
cp "$SCRATCH/plugins/GenerateManual/outputs/biometrics-vault/biometrics-vault.1" "$OUT/biometrics-vault.1"

echo "generated:"
ls -l "$OUT" "$OUT/completions"
