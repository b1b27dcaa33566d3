#!/usr/bin/env bash
# The CLI against the real fprintd on the virtual sensor (scripts/setup/30-fprintd-polkit.sh), alone:
# there is one reader, and in the whole-suite run the Linux-auth tests claim it at the same time.
# `store --biometrics` / `show` succeed on a matching scan, exit 4 on a non-matching one, 3 on Ctrl-C;
# `git credential approve|fill` with the helper store and answer a protected item by a finger; a lockout
# (as the test user, whose password is known) is recovered by the login password through PAM on a pty,
# also under the default authenticator (no --authenticator); unlock windows: one finger per terminal
# (three shows and a git fill), 50 parallel reads, a new enrolled finger closes the window.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
BV_CLI_FINGERPRINT=1 swift test --skip-build --filter 'BiometricsVaultCLITests.FingerprintCLITests' > "$LOG" 2>&1 \
    || { tail -n 30 "$LOG"; exit 1; }
tail -n 30 "$LOG"
# The suite runs only in this step (`.needs(.ownStep(...))`, BV_CLI_FINGERPRINT): make sure each test ran rather than skipped.
for name in protectedShowMatchesAndFailsOnTheRealReader gitCredentialFillIsAnsweredByAFinger \
    aRemoteSessionNeverWaitsForAFinger aLockoutWithoutATerminalIsClearedByTheLoginPassword \
    aLockoutOnATerminalAsksThePasswordThenTheFingerAgain execUnlocksAProtectedItemWithOneFinger \
    lockoutUnderTheDefaultAuthenticatorIsNotInvalidation oneFingerOpensTheWindowForThisTerminalOnly \
    fiftyParallelReadsInsideAWindowTakeNoFinger anEnrollmentChangeClosesTheWindow \
    statusSaysBiometricsAreLockedOutAndHowToRecover; do
    grep -q "$name() passed" "$LOG" || { echo "the fingerprint CLI test $name did not run"; exit 1; }
done
