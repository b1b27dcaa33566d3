import BiometricsVaultCore
import BiometricsVaultTesting
import Observation
import Testing

/// `VaultModel` driving the three screens on the simulated device.
@MainActor
struct VaultModelTests {
    func model(_ fixture: Fixture) -> VaultModel<Login> {
        VaultModel<Login>(key: fixture.key, configuration: fixture.configuration)
    }

    func screenName(_ model: VaultModel<Login>) -> String {
        switch model.screen {
        case .signIn(let biometrics, let invalidation):
            "signIn(biometrics: \(biometrics), invalidation: \(invalidation.map { "\($0)" } ?? "nil"))"
        case .locked: "locked"
        case .signedIn(let credentials, let protected): "signedIn(\(credentials.user), protected: \(protected))"
        }
    }

    @Test func walksTheThreeScreens() async {
        let fixture = Fixture()
        let model = model(fixture)
        #expect(screenName(model) == "signIn(biometrics: true, invalidation: nil)")
        #expect(model.credentials == nil)

        #expect(await model.signIn(credentials: alice))
        #expect(screenName(model) == "signedIn(alice, protected: true)")
        #expect(model.credentials == alice)
        #expect(fixture.device.promptCount == 1)

        #expect(await model.lock())
        #expect(screenName(model) == "locked")
        // A relaunch (a new model) starts on the locked screen, without a prompt.
        #expect(screenName(self.model(fixture)) == "locked")
        #expect(fixture.device.promptCount == 1)

        #expect(await model.unlock())
        #expect(screenName(model) == "signedIn(alice, protected: true)")
        #expect(await model.update(credentials: bob))
        #expect(model.credentials == bob)

        #expect(await model.downgrade())
        #expect(screenName(model) == "signedIn(bob, protected: false)")
        #expect(model.canUpgrade)
        #expect(await model.upgrade())
        #expect(screenName(model) == "signedIn(bob, protected: true)")

        #expect(await model.reset())
        #expect(screenName(model) == "signIn(biometrics: true, invalidation: nil)")
        #expect(fixture.device.itemCount == 0)
        #expect(model.lastError == nil)
    }

    @Test func signInWithoutBiometricsStoresPlainly() async {
        let fixture = Fixture(biometryType: .none)
        let model = model(fixture)
        #expect(screenName(model) == "signIn(biometrics: false, invalidation: nil)")
        #expect(await model.signIn(credentials: alice))
        #expect(screenName(model) == "signedIn(alice, protected: false)")
        #expect(!model.canUpgrade)
        #expect(fixture.device.promptCount == 0)
    }

    @Test func failuresLandInLastErrorAndKeepTheState() async {
        let fixture = Fixture()
        let model = model(fixture)
        await model.signIn(credentials: alice)
        await model.lock()
        fixture.device.enqueue(.userCancel)
        #expect(await model.unlock() == false)
        #expect(model.lastError == .userCancel)
        #expect(screenName(model) == "locked")
        #expect(!model.isWorking)
        model.clearError()
        #expect(model.lastError == nil)

        fixture.device.enqueue(.userFallback)
        #expect(await model.unlock() == false)
        #expect(model.lastError == .userFallback)
        #expect(model.lastError?.errorDescription == "You chose to sign in another way.")
    }

    @Test func lockoutIsClearedByReauthenticatingTheOwner() async {
        let fixture = Fixture()
        let model = model(fixture)
        await model.signIn(credentials: alice)
        await model.lock()
        fixture.device.enqueue(.noMatch, .noMatch, .noMatch, .noMatch, .noMatch)
        for _ in 0..<5 { await model.unlock() }
        #expect(await model.unlock() == false)
        #expect(model.lastError == .biometryLockout)
        #expect(model.lastErrorMessage?.description == "Face ID is locked after too many attempts.")
        #expect(screenName(model) == "locked")
        #expect(await model.reauthenticateOwner())
        #expect(screenName(model) == "locked")
        #expect(await model.unlock())
        #expect(model.credentials == alice)
    }

    @Test func enrollmentChangeShowsSignInWithTheReason() async {
        let fixture = Fixture()
        let model = model(fixture)
        await model.signIn(credentials: alice)
        await model.lock()
        fixture.device.changeEnrollment()
        #expect(await model.unlock() == false)
        #expect(model.lastError == .biometryChanged)
        #expect(screenName(model) == "signIn(biometrics: true, invalidation: biometryChanged)")
    }

    @Test func refreshAfterLockAllSessionsShowsTheLockedScreen() async {
        let fixture = Fixture(reuse: .session(timeout: .seconds(300)))
        let model = model(fixture)
        await model.signIn(credentials: alice)
        // Inside the session a relaunch goes straight to the signed-in screen.
        #expect(screenName(self.model(fixture)) == "signedIn(alice, protected: true)")
        fixture.configuration.lockAllSessions()
        #expect(model.refresh())
        #expect(screenName(model) == "locked")
    }

    @Test func actionsAreRefusedWhileOneRuns() async throws {
        let device = SimulatedDevice()
        let gate = PromptGate(device.authenticator)
        let configuration = VaultConfiguration(store: device.store, authenticator: gate, service: "tests")
        let model = VaultModel<Login>(key: "credentials", configuration: configuration)
        let unlock = Task { @MainActor in await model.signIn(credentials: alice) }
        await gate.waitUntilPromptIsUp()
        // The prompt is up: the model says so, and a second tap is refused without a second prompt.
        #expect(model.isWorking)
        #expect(await model.unlock() == false)
        #expect(await model.signIn(credentials: bob) == false)
        #expect(model.refresh() == false)
        gate.release()
        #expect(await unlock.value)
        #expect(!model.isWorking)
        #expect(model.credentials == alice)
        #expect(device.biometricPromptCount == 1)
    }

    /// `withObservationTracking` fires for every transition: each action changes an observed property.
    @Test func observationFiresOnEveryTransition() async {
        let fixture = Fixture()
        let model = model(fixture)
        let steps: [(String, @MainActor () async -> Void)] = [
            ("signIn", { await model.signIn(credentials: alice) }),
            ("lock", { await model.lock() }),
            ("unlock", { await model.unlock() }),
            ("update", { await model.update(credentials: bob) }),
            ("downgrade", { await model.downgrade() }),
            ("upgrade", { await model.upgrade() }),
            ("reset", { await model.reset() }),
            ("refresh", { model.refresh() }),
        ]
        var previous = screenName(model)
        for (name, step) in steps {
            let fired = LockedValue(0)
            withObservationTracking {
                _ = model.vault
            } onChange: {
                fired.withLock { $0 += 1 }
            }
            await step()
            #expect(fired.withLock { $0 } == 1, "observing `vault` did not fire for \(name)")
            if name != "update" && name != "refresh" {
                #expect(screenName(model) != previous, "\(name) did not change the screen")
            }
            previous = screenName(model)
        }
        // A failed action changes the observed error and the in-progress flag.
        fixture.device.enqueue(.userCancel)
        let fired = LockedValue(0)
        withObservationTracking {
            _ = model.lastError
            _ = model.isWorking
        } onChange: {
            fired.withLock { $0 += 1 }
        }
        await model.signIn(credentials: alice)
        #expect(fired.withLock { $0 } == 1)
        #expect(model.lastError == .userCancel)
    }
}

/// The simulated device's authenticator, holding each biometric prompt "on screen" until the test
/// releases it (the simulator answers at once; this makes "while a prompt is up" observable).
final class PromptGate: Authenticator {
    let device: SimulatedAuthenticator
    private let state = LockedValue<(up: Bool, waiters: [CheckedContinuation<Void, Never>], held: CheckedContinuation<Void, Never>?)>(
        (false, [], nil))

    init(_ device: SimulatedAuthenticator) { self.device = device }

    var biometryType: BiometryType { device.biometryType }
    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability { device.availability(for: policy) }
    func currentEnrollment() throws -> EnrollmentFingerprint? { try device.currentEnrollment() }
    func authenticateOwner(prompt: PromptText) async throws { try await device.authenticateOwner(prompt: prompt) }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        await withCheckedContinuation { continuation in
            let waiters = state.withLock { state in
                state.up = true
                state.held = continuation
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        return try await device.authenticate(for: policy, prompt: prompt)
    }

    func waitUntilPromptIsUp() async {
        await withCheckedContinuation { continuation in
            let up = state.withLock { state in
                if !state.up { state.waiters.append(continuation) }
                return state.up
            }
            if up { continuation.resume() }
        }
    }

    func release() {
        let held = state.withLock { state in
            defer { state.held = nil; state.up = false }
            return state.held
        }
        held?.resume()
    }
}
