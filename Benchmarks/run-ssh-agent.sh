#!/usr/bin/env bash
# `biometrics-vault ssh-agent` against OpenSSH's own `ssh-agent`, whole processes in one run
# (Benchmarks/compare-processes.py, interleaved): `ssh-add -L`, and `ssh-keygen -Y sign` of a short
# message with a key that needs no check (policy none), and with a finger-protected key inside the
# agent's window (opened once by a finger that Benchmarks/fingerprint-responder.py answers). OpenSSH's
# agent holds an Ed25519 key of its own; ours asks the vault service, which keeps ours. Goal: within 1.5x
# (Docs/Benchmarks.md).
# As root, after scripts/setup/30-fprintd-polkit.sh and 55-openssh.sh (BV_TEST_USER, BV_FPRINT_SOCKET,
# BV_PYTHON_KEYRING from $BV_ENV_FILE): it installs the service (scripts/lib/vault-service.sh) from BIN
# (default: package-deb.sh's release build in .build-release) and removes it at the end.
#   sudo bash Benchmarks/run-ssh-agent.sh      # BIN=... ROUNDS=40
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run-ssh-agent.sh needs root (it installs the service)"; exit 1; }
: "${BV_TEST_USER:?set by scripts/setup/30-fprintd-polkit.sh}" "${BV_FPRINT_SOCKET:?}" "${BV_PYTHON_KEYRING:?}"
BIN=${BIN:-.build-release/release/biometrics-vault}
[ -x "$BIN" ] || { echo "no release build at $BIN: bash scripts/package-deb.sh makes it"; exit 1; }
BIN=$(realpath "$BIN")
ROUNDS=${ROUNDS:-40}
# shellcheck source=../scripts/lib/vault-service.sh
source scripts/lib/vault-service.sh
WORK=$(mktemp -d /tmp/bv-ssh-bench.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK/home/run"
chown -R "$BV_TEST_USER" "$WORK/home"
chmod -R 700 "$WORK/home"
PIDS=()
AS_USER=(runuser -u "$BV_TEST_USER" -- env -i PATH=/usr/bin:/bin HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/home/run" SWIFT_BACKTRACE=enable=no)
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for name in bench-none bench-finger; do "${AS_USER[@]}" "$BIN" ssh-key delete "$name" >/dev/null 2>&1 || true; done
    fprintd-delete "$BV_TEST_USER" >/dev/null 2>&1 || true
    vault_service_uninstall
    rm -rf "$WORK"
}
trap cleanup EXIT
vault_service_install "$BIN"

OURS=$WORK/home/run/ours.sock
THEIRS=$WORK/home/run/theirs.sock
"${AS_USER[@]}" "$BIN" ssh-agent --socket "$OURS" --window 3600 >/dev/null 2>&1 &
PIDS+=($!)
"${AS_USER[@]}" ssh-agent -D -a "$THEIRS" >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ -S "$OURS" ] && [ -S "$THEIRS" ] && break; sleep 0.1; done

"$BV_PYTHON_KEYRING" Benchmarks/fingerprint-responder.py bench-finger > "$WORK/responder.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q ready "$WORK/responder.log" && break; sleep 0.1; done
fprintd-delete "$BV_TEST_USER" >/dev/null
fprintd-enroll -f right-index-finger "$BV_TEST_USER" | tail -n 1

"${AS_USER[@]}" "$BIN" ssh-key generate bench-none --policy none > "$WORK/home/none.pub"
"${AS_USER[@]}" "$BIN" ssh-key generate bench-finger --policy biometryAny > "$WORK/home/finger.pub"
"${AS_USER[@]}" ssh-keygen -q -t ed25519 -N '' -C theirs -f "$WORK/home/theirs"
"${AS_USER[@]}" env SSH_AUTH_SOCK="$THEIRS" ssh-add -q "$WORK/home/theirs"
printf 'a commit to sign\n' > "$WORK/home/message"
chown -R "$BV_TEST_USER" "$WORK/home"
# The window: one finger (answered by the responder) opens it for the agent and the finger key.
"${AS_USER[@]}" env SSH_AUTH_SOCK="$OURS" ssh-keygen -Y sign -n git -f "$WORK/home/finger.pub" < "$WORK/home/message" > /dev/null

user=$(printf '%q ' "${AS_USER[@]}")
sign() { echo "sh -c '$user env SSH_AUTH_SOCK=$1 ssh-keygen -Y sign -n git -f $2 < $WORK/home/message'"; }
echo "ssh-add -L, $ROUNDS rounds (ours, then OpenSSH's ssh-agent as the baseline):"
python3 Benchmarks/compare-processes.py "$ROUNDS" "$user env SSH_AUTH_SOCK=$OURS ssh-add -L" "$user env SSH_AUTH_SOCK=$THEIRS ssh-add -L"
echo "ssh-keygen -Y sign: ours with a key of policy none, ours inside a window, then OpenSSH's:"
python3 Benchmarks/compare-processes.py "$ROUNDS" "$(sign "$OURS" "$WORK/home/none.pub")" "$(sign "$OURS" "$WORK/home/finger.pub")" \
    "$(sign "$THEIRS" "$WORK/home/theirs.pub")"
