import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// `VaultError` as an app shows it: `LocalizedError` texts for every code, never secret bytes.
struct UserFacingErrorTests {
    @Test(arguments: VaultError.Code.all)
    func everyCodeHasItsOwnUserTexts(_ code: VaultError.Code) throws {
        let error = VaultError(code)
        let description = try #require(error.errorDescription)
        #expect(description != "Something went wrong.", "\(code) falls back to the generic text")
        #expect(!description.contains(code.name), "the user text must not be the developer code")
        #expect(!description.contains("{biometry}"))
        #expect(error.recoverySuggestion?.contains("{biometry}") != true)
        // `description` stays the developer form; `localizedDescription` is the user text.
        #expect(error.description == "VaultError.\(code.name)")
        #expect(error.localizedDescription == description)
    }

    @Test func textsAreDistinctPerCode() {
        let texts = VaultError.Code.all.map { VaultError($0).errorDescription ?? "" }
        #expect(Set(texts).count == texts.count)
    }

    @Test func lockoutNamesTheBiometryAndSaysWhatToDo() {
        let message = VaultError.biometryLockout.userMessage(biometryType: .faceID)
        #expect(message.description == "Face ID is locked after too many attempts.")
        #expect(message.recoverySuggestion == "Enter your passcode or device password to continue.")
        #expect(VaultError.biometryLockout.userMessage(biometryType: .fingerprint).description
            == "Fingerprint unlock is locked after too many attempts.")
    }

    @Test(arguments: VaultError.Code.all)
    func userTextsNeverCarryTheUnderlyingCause(_ code: VaultError.Code) {
        let secret = "hunter2-token-\(UUID().uuidString)"
        let error = VaultError(code, underlying: .message(secret))
        #expect(error.description.contains(secret), "the developer form keeps the cause")
        for text in [error.errorDescription, error.recoverySuggestion, error.localizedDescription] {
            #expect(text?.contains(secret) != true)
        }
    }
}

/// LAError `userFallback` has its own code and is never a failed attempt.
struct UserFallbackTests {
    @Test func fallbackIsItsOwnCodeAndNeverCounts() async throws {
        let fixture = Fixture()
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.enqueue(.noMatch, .userFallback)
        let locked = try fixture.retrieve()
        #expect(await code { _ = try await locked.unlock() } == .authenticationFailed)
        await #expect(throws: VaultError.userFallback) { _ = try await locked.unlock() }
        #expect(fixture.device.consecutiveFailures == 1, "the fallback must not count as a failed attempt")
        // Not a cancel either: an app's `catch where error == .userCancel` does not swallow it.
        #expect(VaultError.userFallback != VaultError.userCancel)
    }

    @Test func fiveFallbacksNeverLockOut() async throws {
        let fixture = Fixture()
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        for _ in 0..<5 { fixture.device.enqueue(.userFallback) }
        for _ in 0..<5 { #expect(await code { _ = try await fixture.retrieve().unlock() } == .userFallback) }
        #expect(!fixture.device.isLockedOut)
        #expect(try await fixture.retrieve().unlock().credentials == alice)
    }
}

/// Inside a reusable session retrieve gives `.biometrics` without a prompt; after timeout or lock, `.locked`.
struct RetrieveInsideSessionTests {
    @Test func insideTheWindowRetrieveIsUnlockedWithoutAPrompt() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        guard case .biometrics(let unlocked) = try fixture.retrieve() else { Issue.record("not biometrics"); return }
        #expect(unlocked.credentials == alice)
        #expect(unlocked.isUnlocked)
        #expect(fixture.device.promptCount == 1)
        // A copy of the configuration shares the session.
        let copy = fixture.configuration
        guard case .biometrics = try VaultFactory<Login>.retrieveVaultOrThrow(key: fixture.key, configuration: copy)
        else { Issue.record("a copy of the configuration must share the session"); return }
        // The handle is a full unlocked vault: update needs no prompt either.
        _ = try await unlocked.update(credentials: bob)
        #expect(fixture.device.promptCount == 1)
    }

    @Test func afterTheTimeoutRetrieveIsLocked() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.clock.advance(by: .seconds(60))
        #expect(try fixture.retrieve().caseName == "locked")
        #expect(fixture.device.promptCount == 1)
    }

    @Test func afterLockRetrieveIsLocked() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        let unlocked = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        _ = try unlocked.lock()
        #expect(try fixture.retrieve().caseName == "locked")
    }

    @Test func withoutReuseRetrieveIsLocked() async throws {
        let fixture = Fixture(reuse: .never)
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        #expect(try fixture.retrieve().caseName == "locked")
    }

    @Test func anotherConfigurationHasItsOwnSessions() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        let other = VaultConfiguration(
            store: fixture.device.store, authenticator: fixture.device.authenticator,
            reuse: .session(timeout: .seconds(60)), service: "tests", clock: fixture.device.clock.vaultClock)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: fixture.key, configuration: other).caseName == "locked")
    }

    @Test func enrollmentChangedInsideTheWindowIsStillReported() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.changeEnrollment()
        let vault = try fixture.retrieve()
        #expect(vault.caseName == "emptyWithBiometrics")
        #expect(vault.invalidation == .biometryChanged)
    }
}

/// `VaultConfiguration.lockAllSessions()` ends every session of the configuration and its copies.
struct LockAllSessionsTests {
    @Test func endsEverySessionOfEveryKeyAndCopy() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(300)))
        let copy = fixture.configuration
        let first = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        let second = try await VaultFactory<Login>.retrieveVaultOrThrow(key: "other", configuration: copy)
            .storeToBiometrics(credentials: bob)
        copy.lockAllSessions()
        for vault in [first, second] {
            guard case .biometrics(let handle) = vault else { Issue.record("not biometrics"); return }
            #expect(!handle.isUnlocked)
            #expect(await code { _ = try await handle.update(credentials: alice) } == .vaultLocked)
            #expect(await code { _ = try handle.downgrade() } == .vaultLocked)
        }
        // Nothing was written; both are still protected and read back unchanged after a new prompt.
        #expect(try fixture.retrieve().caseName == "locked")
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "other", configuration: fixture.configuration).caseName == "locked")
        let prompts = fixture.device.promptCount
        #expect(try await fixture.retrieve().unlock().credentials == alice)
        #expect(fixture.device.promptCount == prompts + 1, "unlock after lockAllSessions prompts again")
    }

    @Test func endsSessionsThatAreNoLongerTheReusableOne() async throws {
        // Without reuse each unlock opens a new session; the earlier handles must be locked too.
        let fixture = Fixture(reuse: .never)
        let stored = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        let unlocked = try await fixture.retrieve().unlock()
        fixture.configuration.lockAllSessions()
        for vault in [stored, unlocked] {
            guard case .biometrics(let handle) = vault else { Issue.record("not biometrics"); return }
            #expect(!handle.isUnlocked)
            #expect(await code { _ = try handle.downgrade() } == .vaultLocked)
        }
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
    }

    @Test func anUnlockInFlightReturnsALockedVault() async throws {
        // The prompt is on screen when the app goes to the background: no session may survive.
        let device = SimulatedDevice()
        let plain = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "tests")
        _ = try await VaultFactory<Login>.retrieveVaultOrThrow(key: "k", configuration: plain)
            .storeToBiometrics(credentials: alice)
        let gate = PromptGate(device.authenticator)
        let configuration = VaultConfiguration(
            store: device.store, authenticator: gate, reuse: .session(timeout: .seconds(300)), service: "tests",
            clock: device.clock.vaultClock)
        let locked = try VaultFactory<Login>.retrieveVaultOrThrow(key: "k", configuration: configuration)
        let unlock = Task { try await locked.unlock() }
        await gate.waitUntilPromptIsUp()
        configuration.lockAllSessions()
        gate.release()
        guard case .biometrics(let unlocked) = try await unlock.value else { Issue.record("not biometrics"); return }
        #expect(!unlocked.isUnlocked)
        #expect(await code { _ = try await unlocked.update(credentials: bob) } == .vaultLocked)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "k", configuration: configuration).caseName == "locked")
    }

    @Test func leavesOtherConfigurationsAlone() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(300)))
        let unlocked = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        let other = VaultConfiguration(store: fixture.device.store, authenticator: fixture.device.authenticator, service: "tests")
        other.lockAllSessions()
        guard case .biometrics(let handle) = unlocked else { Issue.record("not biometrics"); return }
        #expect(handle.isUnlocked)
    }
}

/// Opt-in reset of items that outlived a reinstall of the app.
struct ReinstallTests {
    func configuration(_ device: SimulatedDevice, marker: Bool) -> VaultConfiguration {
        var configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "app")
        if marker { configuration.installMarker = device.installMarker }
        return configuration
    }

    @Test(arguments: [false, true])
    func firstLaunchAfterAReinstallResetsAndSaysSo(protected: Bool) async throws {
        let device = SimulatedDevice()
        let before = configuration(device, marker: true)
        let empty = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: before)
        #expect(empty.invalidation == nil)
        if protected {
            _ = try await empty.storeToBiometrics(credentials: alice)
        } else {
            _ = try empty.storeToKeychain(credentials: alice)
        }
        // An ordinary relaunch keeps the item.
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: true))
            .biometricsEnabled == protected)
        let prompts = device.promptCount

        device.reinstallApp()
        let after = configuration(device, marker: true)
        let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: after)
        #expect(vault.caseName == "emptyWithBiometrics")
        #expect(vault.invalidation == .appReinstalled)
        #expect(device.itemCount == 0, "the item from the earlier install is deleted")
        #expect(device.promptCount == prompts, "resetting never prompts")
        // Reported once; the next retrieve is an ordinary empty vault.
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: after).invalidation == nil)
    }

    @Test func withoutTheMarkerItemsSurviveAReinstall() throws {
        let device = SimulatedDevice()
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: false))
            .storeToKeychain(credentials: alice)
        device.reinstallApp()
        let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: false))
        #expect(try vault.credentials == alice)
    }

    @Test func anItemStoredInThisInstallIsKept() throws {
        let device = SimulatedDevice()
        let first = configuration(device, marker: true)
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: first).storeToKeychain(credentials: alice)
        device.reinstallApp()
        let after = configuration(device, marker: true)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: after).invalidation == .appReinstalled)
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: after).storeToKeychain(credentials: bob)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: after).credentials == bob)
    }

    @Test func theNonThrowingRetrieveReportsItToo() throws {
        let device = SimulatedDevice()
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: true))
            .storeToKeychain(credentials: alice)
        device.reinstallApp()
        let vault = VaultFactory<Login>.retrieveVault(key: "login", configuration: configuration(device, marker: true))
        #expect(vault.invalidation == .appReinstalled)
    }

    @Test func aStoreThatCannotBeReadKeepsTheMarkerUnsetAndRetries() throws {
        let device = SimulatedDevice()
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: true))
            .storeToKeychain(credentials: alice)
        device.reinstallApp()
        device.setKeychainLocked(true)
        #expect(throws: VaultError.storeLocked) {
            _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: true))
        }
        device.setKeychainLocked(false)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration(device, marker: true))
            .invalidation == .appReinstalled)
    }
}
