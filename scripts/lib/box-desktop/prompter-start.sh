#!/bin/sh
# Starts the package's prompter unit for this user and waits (10 s) until the service's audit shows it
# registered.
set -e
since=$(date +%s)
systemctl --user start biometrics-vault-prompter.service
for _ in $(seq 100); do
    /usr/bin/biometrics-vault audit --json --since "$(( $(date +%s) - since + 1 ))s" 2>/dev/null | grep -q prompterRegistered && exit 0
    sleep 0.1
done
echo "the prompter did not register" >&2
exit 1
