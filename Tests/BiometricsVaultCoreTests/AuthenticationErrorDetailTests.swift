import BiometricsVaultCore
import BiometricsVaultTesting
import Testing

/// An authenticator's error reaches the caller whole: its code and its explanation (the CLI prints the
/// explanation, e.g. "this is a remote session (SSH)..." or the way out of a lockout). Before the fix the
/// driver rebuilt the error from the code alone and the explanation was lost.
@Suite struct AuthenticationErrorDetailTests {
    /// Passes through to the simulated device's authenticator, except that it fails prompts with
    /// `failure` once told to (a fault the simulated device does not produce with its own words).
    struct ExplainingAuthenticator: Authenticator {
        let wrapped: any Authenticator
        let failing: LockedValue<Bool>
        let failure = VaultError(.biometryNotAvailable, underlying: .message("explained by the authenticator"))

        var biometryType: BiometryType { wrapped.biometryType }
        func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability { wrapped.availability(for: policy) }
        func currentEnrollment() throws -> EnrollmentFingerprint? { try wrapped.currentEnrollment() }
        func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
            if failing.withLock({ $0 }) { throw failure }
            return try await wrapped.authenticate(for: policy, prompt: prompt)
        }
        func authenticateOwner(prompt: PromptText) async throws {
            if failing.withLock({ $0 }) { throw failure }
            try await wrapped.authenticateOwner(prompt: prompt)
        }
    }

    @Test func unlockAndReauthenticateKeepTheAuthenticatorsExplanation() async throws {
        let device = SimulatedDevice(biometryType: .fingerprint, enrolled: true, passcodeSet: true)
        let failing = LockedValue(false)
        let authenticator = ExplainingAuthenticator(wrapped: device.authenticator, failing: failing)
        let configuration = VaultConfiguration(
            store: device.store, authenticator: authenticator, service: "tests", clock: device.clock.vaultClock)
        let stored = try await VaultFactory<String>.retrieveVaultOrThrow(key: "k", configuration: configuration)
            .storeToBiometrics(credentials: "secret")
        let locked = try stored.lock()
        failing.withLock { $0 = true }
        for operation in [{ _ = try await locked.unlock() }, { try await locked.reauthenticateOwner() }] as [@Sendable () async throws -> Void] {
            do {
                try await operation()
                Issue.record("the failing authenticator was not asked")
            } catch let error as VaultError {
                #expect(error.code == .biometryNotAvailable)
                #expect(error.underlying == .message("explained by the authenticator"))
            }
        }
    }
}
