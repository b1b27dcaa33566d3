import BiometricsVaultCore
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

struct LockSemanticsTests {
    @Test func lockEndsTheSessionForEveryCopy() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(300)))
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        let copy = vault
        #expect(copy.isUnlocked)
        _ = vault.lock()
        #expect(!copy.isUnlocked)
        #expect(await code { _ = try await copy.update(credentials: bob) } == .vaultLocked)
        #expect(await code { _ = try copy.downgrade() } == .vaultLocked)
        // Nothing was written: still protected, still alice.
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == alice)
    }

    @Test func lockThroughVaultHelperAlsoEndsTheSession() async throws {
        let fixture = Fixture()
        let vault = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        _ = try vault.lock()
        #expect(await code { _ = try await vault.update(credentials: bob) } == .vaultLocked)
        #expect(await code { _ = try vault.downgrade() } == .vaultLocked)
    }

    /// lock() (on a copy) or lockAllSessions() while an update waits for its prompt: once the prompt
    /// passes, the update fails with vaultLocked and writes nothing.
    @Test(arguments: [false, true])
    func lockWhileAnUpdateWaitsForItsPromptStopsTheWrite(lockingAll: Bool) async throws {
        let fixture = Fixture()
        let held = HeldPromptAuthenticator(wrapping: fixture.device.authenticator)
        var configuration = fixture.configuration
        configuration.authenticator = held
        let empty = try VaultFactory<Login>.retrieveVaultOrThrow(key: fixture.key, configuration: configuration)
        guard case .biometrics(let vault) = try await empty.storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        held.holdNextPrompt()
        let update = Task { try await vault.update(credentials: bob) }
        for _ in 0..<5_000 where !held.isHolding { try await Task.sleep(for: .milliseconds(1)) }
        try #require(held.isHolding, "the update never reached its prompt")
        if lockingAll { configuration.lockAllSessions() } else { _ = vault.lock() }
        held.release()
        #expect(await code { _ = try await update.value } == .vaultLocked)
        // Nothing was written: still alice, still protected.
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == alice)
    }

    @Test func unlockAfterLockPromptsAgainEvenInsideTheWindow() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(300)))
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        let locked = vault.lock()
        _ = try await locked.unlock()
        #expect(fixture.device.promptCount == 2)
    }
}

struct SessionReuseTests {
    @Test func sessionReuseSkipsPromptsInsideTheWindow() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(60)))
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        #expect(fixture.device.promptCount == 1)
        let updated = try await vault.update(credentials: bob)
        #expect(fixture.device.promptCount == 1, "update inside the window must not prompt")
        // Inside the window retrieve itself gives the unlocked vault (the seed's "log in right away").
        guard case .biometrics(let reused) = try fixture.retrieve() else { Issue.record("not biometrics"); return }
        #expect(reused.credentials == bob)
        guard case .biometrics = try fixture.retrieve() else { Issue.record("not biometrics"); return }
        #expect(fixture.device.promptCount == 1, "repeated retrieves inside the window must not prompt")

        fixture.device.clock.advance(by: .seconds(61))
        _ = try await updated.update(credentials: alice)
        #expect(fixture.device.promptCount == 2, "after the window, update prompts again")
        fixture.device.clock.advance(by: .seconds(30))
        guard case .biometrics(let third) = try fixture.retrieve() else { Issue.record("not biometrics"); return }
        #expect(third.credentials == alice)
        #expect(fixture.device.promptCount == 2, "the renewed session is reused")
    }

    @Test func neverReusePromptsEveryTime() async throws {
        let fixture = Fixture(reuse: .never)
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        let updated = try await vault.update(credentials: bob)
        #expect(fixture.device.promptCount == 2)
        _ = try await updated.update(credentials: alice)
        #expect(fixture.device.promptCount == 3)
        for expected in 4...5 {
            guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
            _ = try await locked.unlock()
            #expect(fixture.device.promptCount == expected)
        }
    }

    @Test func cancelledUpdatePromptWritesNothing() async throws {
        let fixture = Fixture()
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        fixture.device.enqueue(.userCancel)
        #expect(await code { _ = try await vault.update(credentials: bob) } == .userCancel)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == alice)
    }
}

struct LockoutTests {
    @Test func fiveFailuresLockOutUntilOwnerAuthentication() async throws {
        let fixture = Fixture()
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        fixture.device.enqueue(.noMatch, .noMatch, .noMatch, .noMatch)
        for _ in 0..<4 { #expect(await code { _ = try await locked.unlock() } == .authenticationFailed) }
        fixture.device.enqueue(.userCancel, .systemCancel)
        #expect(await code { _ = try await locked.unlock() } == .userCancel)
        #expect(await code { _ = try await locked.unlock() } == .systemCancel)
        #expect(fixture.device.consecutiveFailures == 4, "a cancel is never a failed attempt")
        fixture.device.enqueue(.noMatch)
        #expect(await code { _ = try await locked.unlock() } == .authenticationFailed)
        let promptsAtLockout = fixture.device.promptCount
        #expect(await code { _ = try await locked.unlock() } == .biometryLockout)
        #expect(fixture.device.promptCount == promptsAtLockout, "a locked-out sensor shows no prompt")
        // Locked out is still "biometrics present": the vault stays offered, not hidden.
        #expect(try fixture.retrieve().caseName == "locked")

        fixture.device.enqueueOwner(.userCancel)
        #expect(await code { try await locked.reauthenticateOwner() } == .userCancel)
        fixture.device.enqueueOwner(.noMatch)
        #expect(await code { try await locked.reauthenticateOwner() } == .authenticationFailed)
        #expect(await code { _ = try await locked.unlock() } == .biometryLockout)
        try await locked.reauthenticateOwner()
        #expect(try await locked.unlock().credentials == alice)
    }

    @Test func ownerAuthenticationNeedsAPasscode() async throws {
        let fixture = Fixture()
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        fixture.device.setPasscode(false)
        #expect(await code { try await locked.reauthenticateOwner() } == .passcodeNotSet)
    }
}

struct EnrollmentTests {
    @Test func enrollmentChangeInvalidatesCurrentSetItems() async throws {
        let fixture = Fixture(policy: .biometryCurrentSet)
        let vault = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.changeEnrollment()
        let after = try fixture.retrieve()
        guard case .emptyWithBiometrics(let empty) = after else { Issue.record("got \(after.caseName)"); return }
        #expect(empty.invalidation == .biometryChanged)
        #expect(after.invalidation == .biometryChanged)
        // The old unlocked handle cannot update the invalidated item either.
        #expect(await code { _ = try await vault.update(credentials: bob) } == .biometryChanged)
        // Storing again replaces the invalidated item.
        let fresh = try await empty.storeToBiometrics(credentials: bob)
        #expect(fresh.credentials == bob)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == bob)
    }

    @Test func enrollmentChangeWhileLockedFailsUnlockWithBiometryChanged() async throws {
        let fixture = Fixture(policy: .biometryCurrentSet)
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        fixture.device.changeEnrollment()
        #expect(await code { _ = try await locked.unlock() } == .biometryChanged)
    }

    @Test func biometryAnySurvivesEnrollmentChange() async throws {
        let fixture = Fixture(policy: .biometryAny)
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.changeEnrollment()
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == alice)
    }

    @Test func removingEnrollmentInvalidatesCurrentSetAndHidesBiometrics() async throws {
        let fixture = Fixture(policy: .biometryCurrentSet)
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        fixture.device.removeEnrollment()
        let vault = try fixture.retrieve()
        #expect(vault.caseName == "empty")
        #expect(vault.invalidation == .biometryChanged)
    }

    @Test func passcodeRemovalDestroysProtectedItemsOnly() async throws {
        let protected = Fixture()
        _ = try await protected.retrieve().storeToBiometrics(credentials: alice)
        protected.device.setPasscode(false)
        let vault = try protected.retrieve()
        #expect(vault.caseName == "empty")
        #expect(await code { _ = try await vault.storeToBiometrics(credentials: alice) } == .passcodeNotSet)

        let plain = Fixture()
        _ = try plain.retrieve().storeToKeychain(credentials: alice)
        plain.device.setPasscode(false)
        #expect(try plain.retrieve().credentials == alice)
        #expect(try plain.retrieve().caseName == "keychain")
    }

    @Test func userPresenceFallsBackToPasscode() async throws {
        let fixture = Fixture(policy: .userPresence)
        let vault = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        #expect(fixture.device.biometricPromptCount == 1)
        _ = try vault.lock()
        fixture.device.removeEnrollment()
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await locked.unlock().credentials == alice)
        #expect(fixture.device.ownerPromptCount == 1)
    }

    @Test func devicePasscodePolicyUsesThePasscodeOnly() async throws {
        let fixture = Fixture(biometryType: .none, policy: .devicePasscode)
        let vault = try fixture.retrieve()
        #expect(vault.caseName == "emptyWithBiometrics", "the passcode policy can be offered without biometrics")
        _ = try await vault.storeToBiometrics(credentials: alice)
        guard case .locked(let locked) = try fixture.retrieve() else { Issue.record("not locked"); return }
        fixture.device.enqueueOwner(.noMatch)
        #expect(await code { _ = try await locked.unlock() } == .authenticationFailed)
        #expect(try await locked.unlock().credentials == alice)
        #expect(fixture.device.biometricPromptCount == 0)
    }
}

struct StoreErrorTests {
    @Test func corruptedItemIsReportedNotEmptiedNorDeleted() async throws {
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: alice)
        #expect(fixture.device.corruptItem(key: fixture.key, service: "tests"))
        #expect(await code { _ = try fixture.retrieve() } == .corruptedItem)
        let lenient = VaultFactory<Login>.retrieveVault(key: fixture.key, configuration: fixture.configuration)
        guard case .emptyWithBiometrics(let empty) = lenient, case .unreadable(let error) = empty.invalidation else {
            Issue.record("the non-throwing retrieve must say why it is empty"); return
        }
        #expect(error.code == .corruptedItem)
        #expect(fixture.device.itemCount == 1, "a corrupted item is never deleted silently")
    }

    @Test func undecodableCredentialsAreCorrupted() async throws {
        struct Other: Codable, Sendable { var count: Int }
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: alice)
        #expect(await code { _ = try VaultFactory<Other>.retrieveVaultOrThrow(key: fixture.key, configuration: fixture.configuration) } == .corruptedItem)
    }

    @Test func lockedStoreIsReportedAsLocked() async throws {
        let fixture = Fixture()
        _ = try fixture.retrieve().storeToKeychain(credentials: alice)
        fixture.device.setKeychainLocked(true)
        #expect(await code { _ = try fixture.retrieve() } == .storeLocked)
        fixture.device.setKeychainLocked(false)
        #expect(try fixture.retrieve().credentials == alice)
    }

    @Test func unavailableStoreIsReported() async throws {
        var faulty: FaultInjectingStore?
        let fixture = Fixture { store in
            let wrapper = FaultInjectingStore(wrapping: store)
            faulty = wrapper
            return wrapper
        }
        faulty?.failCall(1)
        let error = await code { _ = try fixture.retrieve() }
        #expect(error == .storeUnavailable)
    }

    @Test func interactionNotAllowedWhenAStoreRefusesAProtectedWriteWithoutAuthorization() throws {
        let device = SimulatedDevice()
        let id = try SecretItemID(service: "tests", key: "k")
        #expect(throws: VaultError.interactionNotAllowed) {
            try device.store.write(
                StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: SecretBytes(utf8: "x")),
                for: id, authorization: nil)
        }
    }

    @Test func itemDeletedElsewhereMakesProtectedUpdateFail() async throws {
        let fixture = Fixture()
        guard case .biometrics(let vault) = try await fixture.retrieve().storeToBiometrics(credentials: alice) else {
            Issue.record("not biometrics"); return
        }
        _ = try fixture.retrieve().reset()
        #expect(await code { _ = try await vault.update(credentials: bob) } == .vaultLocked)
    }

    @Test func concurrentUpgradeMakesStalePlainUpdateFail() async throws {
        let fixture = Fixture()
        guard case .keychainUpgradable(let first) = try fixture.retrieve().storeToKeychain(credentials: alice) else {
            Issue.record("not keychain"); return
        }
        _ = try await first.upgrade()
        // `first` is a stale plain handle: writing plain now would silently strip the protection.
        #expect(await code { _ = try first.update(credentials: bob) } == .invalidVault)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
    }
}

/// The simulated device's authenticator with a prompt that waits until the test releases it (a user who
/// has not touched the sensor yet): only the next prompt after ``holdNextPrompt()`` waits.
final class HeldPromptAuthenticator: Authenticator {
    private enum Gate: Sendable {
        case open
        case armed
        case holding(CheckedContinuation<Void, Never>)
    }

    private let wrapped: any Authenticator
    private let gate = LockedValue(Gate.open)

    init(wrapping wrapped: any Authenticator) {
        self.wrapped = wrapped
    }

    func holdNextPrompt() {
        gate.withLock { $0 = .armed }
    }

    /// Whether a prompt is waiting for ``release()``.
    var isHolding: Bool {
        gate.withLock { gate in
            switch gate {
            case .holding: true
            case .open, .armed: false
            }
        }
    }

    func release() {
        let waiting: CheckedContinuation<Void, Never>? = gate.withLock { gate in
            switch gate {
            case .holding(let continuation):
                gate = .open
                return continuation
            case .open, .armed:
                return nil
            }
        }
        waiting?.resume()
    }

    var biometryType: BiometryType { wrapped.biometryType }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability { wrapped.availability(for: policy) }

    func currentEnrollment() throws -> EnrollmentFingerprint? { try wrapped.currentEnrollment() }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let holds = gate.withLock { gate in
                switch gate {
                case .armed:
                    gate = .holding(continuation)
                    return true
                case .open, .holding:
                    return false
                }
            }
            if !holds { continuation.resume() }
        }
        return try await wrapped.authenticate(for: policy, prompt: prompt)
    }

    func authenticateOwner(prompt: PromptText) async throws {
        try await wrapped.authenticateOwner(prompt: prompt)
    }
}

/// A `.biometryCurrentSet` item read while the authenticator cannot say which set is enrolled (a
/// reader whose daemon is down, biometrics locked out): the enrollment is unknown, which is not a change.
/// The item reads as locked, `unlock()` says why it cannot prompt, and nothing is deleted. Only "nothing
/// enrolled", confirmed by the authenticator, invalidates it (as Apple does).
struct UnknownEnrollmentTests {
    @Test(arguments: [
        (VaultError.Code.biometryNotAvailable, false),
        (.biometryLockout, false),
        (.passcodeNotSet, false),
        (.biometryNotEnrolled, true),
    ])
    func aNilEnrollmentInvalidatesOnlyWhenNothingIsEnrolled(reason: VaultError.Code, invalidates: Bool) async throws {
        let fixture = Fixture(policy: .biometryCurrentSet)
        _ = try await fixture.retrieve().storeToBiometrics(credentials: alice)
        var configuration = fixture.configuration
        configuration.authenticator = UnansweringBiometricsAuthenticator(reason: VaultError(reason))
        let vault = try VaultFactory<Login>.retrieveVaultOrThrow(key: fixture.key, configuration: configuration)
        if invalidates {
            #expect(vault.caseName == "empty")
            #expect(vault.invalidation == .biometryChanged)
            return
        }
        guard case .locked(let locked) = vault else { Issue.record("got \(vault.caseName), \(String(describing: vault.invalidation))"); return }
        #expect(vault.invalidation == nil)
        #expect(await code { _ = try await locked.unlock() } == reason)
        // Nothing was deleted or rewritten: once the reader answers again, the same finger opens it.
        #expect(fixture.device.itemCount == 1)
        #expect(fixture.device.protection(key: fixture.key, service: "tests") == .protected(.biometryCurrentSet))
        guard case .locked(let again) = try fixture.retrieve() else { Issue.record("not locked"); return }
        #expect(try await again.unlock().credentials == alice)
    }
}

/// Fake for a fault the simulated device cannot produce: an authenticator that cannot ask its biometrics
/// (`reason`) and, like a third-party authenticator might, answers `nil` for the enrolled set instead of
/// throwing.
struct UnansweringBiometricsAuthenticator: Authenticator {
    let reason: VaultError

    var biometryType: BiometryType { .none }
    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability { .unavailable(reason) }
    func currentEnrollment() throws -> EnrollmentFingerprint? { nil }
    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization { throw reason }
    func authenticateOwner(prompt: PromptText) async throws { throw reason }
}
