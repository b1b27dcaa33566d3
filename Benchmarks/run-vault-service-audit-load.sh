#!/usr/bin/env bash
# One user's `Audit` calls against another user's `Status`, through the vault service: the other user's
# Status p50 and p95 alone, then while the first user's six threads call `Audit` without pause over a log
# of about 5 MiB (its five rotations filled by reads of absent items with 256-byte keys), and their ratio.
# The service reads a user's log on a thread of its own, one `Audit` of a user at a time, so the ratio
# shows what one user's audit reads still cost the others (SECURITY.md, "The vault service is shared").
# As root, with the test users of scripts/setup/30-fprintd-polkit.sh (BV_TEST_USER, BV_TEST_OTHER_USER
# from $BV_ENV_FILE) and python3-jeepney: it installs the service (scripts/lib/vault-service.sh) from BIN
# (default: the debug build) on the system bus that setup runs, and removes it at the end.
#   sudo bash Benchmarks/run-vault-service-audit-load.sh      # BIN=... CALLS=400 FILL=20000
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "run-vault-service-audit-load.sh needs root (it installs the service)"; exit 1; }
: "${BV_TEST_USER:?set by scripts/setup/30-fprintd-polkit.sh}" "${BV_TEST_OTHER_USER:?set by scripts/setup/30-fprintd-polkit.sh}"
BIN=${BIN:-$(swift build --show-bin-path)/biometrics-vault}
CALLS=${CALLS:-400}
FILL=${FILL:-20000}
# shellcheck source=../scripts/lib/vault-service.sh
source scripts/lib/vault-service.sh
trap 'vault_service_uninstall' EXIT
vault_service_install "$BIN"
LOAD=$(realpath Benchmarks/vault-service-audit-load.py)
as() { runuser -u "$1" -- env -i PATH=/usr/bin:/bin python3 "$LOAD" "${@:2}"; }

as "$BV_TEST_USER" fill "$FILL"
alone=$(as "$BV_TEST_OTHER_USER" status "$CALLS")
as "$BV_TEST_USER" audit 600 6 > /dev/null &
sleep 2
loaded=$(as "$BV_TEST_OTHER_USER" status "$CALLS")
pkill -u "$BV_TEST_USER" -f vault-service-audit-load.py || true
wait
uid=$(id -u "$BV_TEST_USER")
echo "audit log of the loading user: $(du -cb /var/lib/biometrics-vault/audit/"$uid".log* | tail -n 1 | cut -f1) bytes"
python3 - "$alone" "$loaded" <<'PY'
import sys
alone, loaded = ([float(word) for word in text.split()[1::2]] for text in sys.argv[1:3])
print(f"other user's Status alone: p50 {alone[0]:.2f} ms, p95 {alone[1]:.2f} ms")
print(f"while one user's 6 threads call Audit: p50 {loaded[0]:.2f} ms, p95 {loaded[1]:.2f} ms; p95 ratio {loaded[1] / alone[1]:.2f}x")
PY
