#!/usr/bin/env bash
# The README's main-job command, on a fresh Debian machine, with no daemons: the embedded default
# store (encrypted files) in a throw-away XDG data directory.
#   bash scripts/demo.sh
# 1. installs the build dependencies, 2. builds the CLI in release (static Swift runtime: fast start),
# 3. stores an API token read from stdin, 4. shows one field of it, as a shell script would.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "installing build dependencies (scripts/install-deps.sh)"
bash scripts/install-deps.sh

say "building biometrics-vault (release, -static-swift-stdlib)"
swift build -c release --product biometrics-vault --static-swift-stdlib
BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/biometrics-vault"
echo "binary: $BIN"

DEMO_HOME=$(mktemp -d /tmp/biometrics-vault-demo.XXXXXX)
trap 'rm -rf "$DEMO_HOME"' EXIT
export XDG_DATA_HOME=$DEMO_HOME/data XDG_STATE_HOME=$DEMO_HOME/state
echo "store directory: $XDG_DATA_HOME/biometrics-vault (temporary)"

say "what is usable here: biometrics-vault doctor"
"$BIN" doctor

say "store a token from stdin: echo '{...}' | biometrics-vault store github --store file"
echo '{"user":"demo","token":"ghp_demo_0123456789"}' | "$BIN" store github --store file

say "status (never prompts): biometrics-vault status github --store file"
"$BIN" status github --store file

say "read one field for a script: TOKEN=\$(biometrics-vault show github --store file --field token)"
TOKEN=$("$BIN" show github --store file --field token)
echo "TOKEN has ${#TOKEN} characters and starts with ${TOKEN:0:4}…"

say "the whole item as JSON: biometrics-vault show github --store file"
"$BIN" show github --store file

say "list, then reset"
"$BIN" list --store file
"$BIN" reset github --store file >/dev/null
"$BIN" show github --store file || echo "show after reset exited $? (2 = not found)"
