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
# On a failure: every issue recorded, with the lines that follow it (a terminal's whole text: what the
# commands on it printed), then the tail.
BV_VAULT_SERVICE=1 BV_VAULT_SERVICE_TPM=$tpm swift test --skip-build --filter 'BiometricsVaultCLITests.VaultServiceCLITests' \
    > "$LOG" 2>&1 || { grep -A 80 '✘ Test .* recorded an issue' "$LOG" | cut -c1-400 | head -n 600; tail -n 60 "$LOG"; exit 1; }
tail -n 30 "$LOG"
# The suite runs only in this step (`.needs(.ownStep(...))`, BV_VAULT_SERVICE): make sure each of its tests ran rather than skipped.
for name in aProtectedItemIsReleasedByTheServiceOnlyAfterAMatchingFinger aSameUserProgramCallingTheServiceDirectlyGetsOnlyTheHeader \
    theServicesFilesMemoryAndEnvironmentAreClosedToItsUsers wrongFingersLockOutUntilTheOwnersPassword \
    anotherUserCannotReadListOrCountTheItems theHelpersExecAndImportUseTheServiceByDefault \
    aClientThatLeavesDuringAPromptEndsIt fiftyParallelClientsOfTwoUsersEachSeeTheirOwn \
    theStoreKeysAreSealedToTheServicesTPM killingTheServiceDuringWritesLosesNothing \
    aWindowOfTheServiceServesItsTerminalSessionOnly aWindowOfTheServiceEndsWithTheServiceLockAndItsTime \
    fiftyParallelReadsInsideAWindowNeedNoOtherFinger aCheckStartedSignalFromAnotherProgramShowsNoPromptLine \
    aSuspendClosesTheServicesWindows aWindowForACommandServesItsDescendantsOnly \
    aWindowOfOneServiceReleasesNoOtherServicesItems theSecretServiceProviderKeepsWhatSecretToolAndKeyringStoreInTheVaultService \
    aProtectedSecretServiceItemIsReleasedToEachProgramOnlyAfterItsOwnFinger aRewrittenRecordOfAProtectedItemLeavesItProtected \
    aCollectionWithAPolicyProtectsWhatIsStoredInIt \
    aSecretServicePromptDismissedOrLeftAndAnItemDeletedWhileReadEndCleanly aSessionRecreatedOnTheWindowsTerminalWithItsLeadersPidIsAsked \
    anEnrollmentChangeClosesTheServicesWindow aWindowOfTheProviderServesItsTerminalSessionOnly \
    theServiceExitsWhenIdleAndLeavesNothingBehind aClientKeptPastItsProcessJoinsNoProviderWindowByPidReuse \
    refusedReadsOfAHugeKeyWriteBoundedEntriesAndKeepEarlierOnes anItemInTheStoreUsedBeforeIsNamedWithTheImportThatMovesIt \
    aUserAtTheItemLimitIsRefusedAWholeNewItemWhileAnotherUserStores twoUsersChecksTakeTurnsAtTheReader \
    aCheckNothingWouldShowIsRefusedAtOnce sshKeysLiveInTheServiceAndOnlyTheirPublicHalfLeavesIt \
    aGitSignatureThroughTheAgentNeedsAMatchingFinger sshLogsInToALoopbackServerOnlyAfterAMatchingFinger \
    aSignatureAskedFromTheFarSideOfSSHDashAIsNamedForwarded gitSignsACommitThroughTheAgentAndVerifiesIt \
    sshAddGivesKeysToTheServiceWhichKeepsThemAcrossRestarts anotherUserAndAProgramWithoutAFingerGetNoSignature \
    aWindowServesSeveralLoginsButAKeyToConfirmAsksEachTime printEnvStartsOneAgentForAShell; do
    grep -q "$name() passed" "$LOG" || { echo "the vault service test $name did not run"; exit 1; }
done
for name in 'aConnectionKeptPastItsProcessJoinsNoWindowByPidReuse(parentAttests:)'; do
    grep -qF "$name with " "$LOG" && grep -F "$name with " "$LOG" | grep -q "test cases passed" \
        || { echo "the vault service test $name did not run"; exit 1; }
done

# The Secret Service provider against clients and suites no one here wrote, and the Secret Service store's
# own conformance suite, on a private session bus where `biometrics-vault secret-service` owns the name
# (as root, whose items the service keeps like any user's; the protected-item tests above run as the
# test users, whom polkit does not wave through).
# shellcheck source=../lib/private-session-bus.sh
source scripts/lib/private-session-bus.sh
# shellcheck source=../lib/secret-service-clients.sh
source scripts/lib/secret-service-clients.sh
ss_clients_load_env "${BV_ENV_FILE:?}"
PROVIDER_SANDBOX=$(mktemp -d)
mkdir "$PROVIDER_SANDBOX/run"
stop_provider() {
    [ -s "$PROVIDER_SANDBOX/dbus.pid" ] && kill "$(cat "$PROVIDER_SANDBOX/dbus.pid")" 2>/dev/null
    rm -rf "$PROVIDER_SANDBOX"
}
trap 'stop_provider; vault_service_uninstall; rm -f "$LOG"' EXIT
# Migration: an item stored in each provider the CI runs (gnome-keyring, KeePassXC, KWallet) is imported,
# with its attributes, before the provider starts; a second import adds nothing.
import_checks=()
for source in "gnome-keyring=$DBUS_SESSION_BUS_ADDRESS" "KeePassXC=${BV_KEEPASSXC_BUS_ADDRESS:?}" "KWallet=${BV_KWALLET_BUS_ADDRESS:?}"; do
    name=${source%%=*} bus=${source#*=}
    printf %s "imported-from-$name" | DBUS_SESSION_BUS_ADDRESS=$bus secret-tool store --label "Import $name" service bv-import from "$name"
    DBUS_SESSION_BUS_ADDRESS=$bus "$BIN_DIR/biometrics-vault" secret-service --import
    again=$(DBUS_SESSION_BUS_ADDRESS=$bus "$BIN_DIR/biometrics-vault" secret-service --import)
    [[ $again == "imported 0 item(s)"* ]] || { echo "a second import from $name added items: $again"; exit 1; }
    DBUS_SESSION_BUS_ADDRESS=$bus secret-tool clear service bv-import from "$name"
    import_checks+=("$name")
done
start_private_session_bus "$PROVIDER_SANDBOX"
setsid "$BIN_DIR/biometrics-vault" secret-service > "$PROVIDER_SANDBOX/provider.log" 2>&1 &
for _ in $(seq 100); do
    ss_clients_provider >/dev/null 2>&1 && break
    sleep 0.1
done
echo "Secret Service provider: $(ss_clients_provider)"
for name in "${import_checks[@]}"; do
    got=$(secret-tool lookup service bv-import from "$name")
    [ "$got" = "imported-from-$name" ] || { echo "the item imported from $name reads '$got' through the provider"; exit 1; }
done
echo "imported from ${import_checks[*]}: read back through the provider"
ss_clients_run_all || { cat "$PROVIDER_SANDBOX/provider.log"; exit 1; }
swift test --skip-build --filter 'BiometricsVaultSecretServiceTests.(SecretServiceConformanceTests|SecretServiceInteropTests)' \
    > "$LOG" 2>&1 || { tail -n 60 "$LOG"; cat "$PROVIDER_SANDBOX/provider.log"; exit 1; }
tail -n 3 "$LOG"

# --replace, on a bus of its own: from gnome-keyring, which does not hand the name over (it is stopped),
# and from a running provider of ours, which does (and exits).
REPLACE_SANDBOX=$PROVIDER_SANDBOX/replace
mkdir -p "$REPLACE_SANDBOX/run" "$REPLACE_SANDBOX/data"
start_private_session_bus "$REPLACE_SANDBOX"
XDG_DATA_HOME=$REPLACE_SANDBOX/data XDG_RUNTIME_DIR=$REPLACE_SANDBOX/run \
    bash -c 'printf %s replace-check | gnome-keyring-daemon --unlock --components=secrets' >/dev/null 2>&1
gdbus wait --session --timeout 10 org.freedesktop.secrets
[[ $(ss_clients_provider) == gnome-keyring* ]] || { echo "gnome-keyring does not own the name: $(ss_clients_provider)"; exit 1; }
owner_pid() { ss_clients_provider | sed -n 's/.*(pid \([0-9]*\))$/\1/p'; }
setsid "$BIN_DIR/biometrics-vault" secret-service --replace > "$REPLACE_SANDBOX/first.log" 2>&1 &
for _ in $(seq 100); do [[ $(ss_clients_provider) == biometrics-vaul* ]] && break; sleep 0.1; done
[[ $(ss_clients_provider) == biometrics-vaul* ]] || { echo "--replace did not take the name from gnome-keyring"; cat "$REPLACE_SANDBOX/first.log"; exit 1; }
first=$(owner_pid)
setsid "$BIN_DIR/biometrics-vault" secret-service --replace > "$REPLACE_SANDBOX/second.log" 2>&1 &
for _ in $(seq 100); do [ "$(owner_pid)" != "$first" ] && ! kill -0 "$first" 2>/dev/null && break; sleep 0.1; done
[ "$(owner_pid)" != "$first" ] && ! kill -0 "$first" 2>/dev/null \
    || { echo "a second --replace did not take over, or the first provider did not exit"; cat "$REPLACE_SANDBOX"/*.log; exit 1; }
echo "--replace: taken from gnome-keyring (stopped) and from a running provider (exited)"
# A provider whose bus goes (the session ended) exits.
second=$(owner_pid)
kill "$(cat "$REPLACE_SANDBOX/dbus.pid")"
for _ in $(seq 50); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
! kill -0 "$second" 2>/dev/null || { echo "the provider outlived its session bus"; exit 1; }
