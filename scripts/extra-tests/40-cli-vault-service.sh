#!/usr/bin/env bash
# The vault service (`biometrics-vault service`) on the real system bus, as its own system user,
# started by D-Bus activation, with fprintd on the virtual sensor and polkitd (scripts/setup/
# 30-fprintd-polkit.sh): the CLI as the test users on ptys, and a same-user program with no finger on the
# reader trying every other way in; and the Secret Service provider (`biometrics-vault secret-service`)
# on the test user's session bus, its items in the service, used by secret-tool and python's clients.
# Alone, like the fingerprint CLI suite: there is one reader. The service is installed for this step
# only, so the whole-suite run keeps the stores it tests by default.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${BV_TEST_USER:?BV_TEST_USER is not set: run scripts/setup/30-fprintd-polkit.sh first}"
# shellcheck source=../lib/vault-service.sh
source scripts/lib/vault-service.sh
BIN_DIR=$(swift build --show-bin-path)
LOG=$(mktemp)
trap 'vault_service_uninstall; rm -f "$LOG"' EXIT
vault_service_install "$BIN_DIR/biometrics-vault"
tcti=$(vault_service_tcti)
tpm=0
[ -z "$tcti" ] || tpm=1
echo "the vault service's TPM: ${tcti:-none}"
[ "$tpm" = 1 ] || [ "${BV_REQUIRE_DAEMONS:-0}" != 1 ] || { echo "the vault service has no swtpm (scripts/setup/40-swtpm.sh installs it)"; exit 1; }
BV_VAULT_SERVICE=1 BV_VAULT_SERVICE_TPM=$tpm swift test --skip-build --filter 'BiometricsVaultCLITests.VaultServiceCLITests' \
    > "$LOG" 2>&1 || { tail -n 60 "$LOG"; exit 1; }
tail -n 30 "$LOG"
# The suite runs only with BV_VAULT_SERVICE: make sure each of its tests ran rather than skipped.
for name in aProtectedItemIsReleasedByTheServiceOnlyAfterAMatchingFinger aSameUserProgramWithoutAFingerGetsNothing \
    anotherUserCannotReadListOrCountTheItems theHelpersExecAndImportUseTheServiceByDefault \
    aClientThatLeavesDuringAPromptEndsIt fiftyParallelClientsOfTwoUsersEachSeeTheirOwn \
    theStoreKeysAreSealedToTheServicesTPM killingTheServiceDuringWritesLosesNothing \
    aWindowOfTheServiceServesItsTerminalSessionOnly aSuspendClosesTheServicesWindows aWindowForACommandServesItsDescendantsOnly \
    aWindowOfOneServiceReleasesNoOtherServicesItems theSecretServiceProviderKeepsWhatSecretToolAndKeyringStoreInTheVaultService \
    aProtectedSecretServiceItemIsReleasedToEachProgramOnlyAfterItsOwnFinger \
    aSecretServicePromptDismissedOrLeftAndAnItemDeletedWhileReadEndCleanly; do
    grep -q "$name() passed" "$LOG" || { echo "the vault service test $name did not run"; exit 1; }
done
