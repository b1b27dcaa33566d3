// The Linux platform default (its fprintd probe, PAM and the file store fallback): Linux only.
#if os(Linux)
@testable import BiometricsVault
import BiometricsVaultTesting
import Dispatch
import Glibc
import BiometricsVaultTestSupport
import Testing

/// The platform default's own pieces, in process: the "biometrics unavailable" authenticator, the
/// deferred choice of authenticator, and the diagnosis `doctor` prints.
@Suite(.onTestThreads) struct PlatformDefaultTests {
    static let reason = VaultError(.biometryNotEnrolled, underlying: .message("no finger enrolled"))

    static func owner(_ result: Result<Void, VaultError>, calls: LockedValue<Int> = LockedValue(0)) -> UnavailableAuthenticator.OwnerAuthentication {
        .init(
            name: "test-owner", availability: { .available },
            authenticate: { _ in
                calls.withLock { $0 += 1 }
                try result.get()
            })
    }

    @Test(arguments: AuthenticatorConformance.Check.allCases)
    func withoutOwnerAuthenticationItConforms(check: AuthenticatorConformance.Check) async throws {
        let authenticator = UnavailableAuthenticator(reason: Self.reason)
        for policy in ProtectionPolicy.allCases {
            try await AuthenticatorConformance(authenticator: authenticator, policy: policy, prepareMatch: {}).run(check)
        }
    }

    @Test(arguments: AuthenticatorConformance.Check.allCases)
    func withOwnerAuthenticationItConforms(check: AuthenticatorConformance.Check) async throws {
        let authenticator = UnavailableAuthenticator(reason: Self.reason, owner: Self.owner(.success(())))
        for policy in ProtectionPolicy.allCases {
            try await AuthenticatorConformance(authenticator: authenticator, policy: policy, prepareMatch: {}).run(check)
        }
    }

    @Test func biometricPoliciesReportTheReasonAndNeverAskTheOwner() async throws {
        let calls = LockedValue(0)
        let authenticator = UnavailableAuthenticator(reason: Self.reason, owner: Self.owner(.success(()), calls: calls))
        #expect(authenticator.biometryType == .none)
        #expect(try authenticator.currentEnrollment() == nil)
        for policy in [ProtectionPolicy.biometryCurrentSet, .biometryAny] {
            #expect(authenticator.availability(for: policy) == .unavailable(Self.reason))
            await #expect(throws: VaultError.biometryNotEnrolled) {
                _ = try await authenticator.authenticate(for: policy, prompt: .default)
            }
        }
        #expect(calls.withLock { $0 } == 0)
    }

    /// Only "nothing enrolled" is a `nil` enrolled set; for any other reason (fprintd down, no reader) the
    /// set is unknown and `currentEnrollment()` throws it, so it is never read as an enrollment change.
    @Test(arguments: [VaultError.Code.biometryNotAvailable, .biometryLockout, .passcodeNotSet])
    func anUnknownEnrollmentThrowsTheReason(code: VaultError.Code) async throws {
        let reason = VaultError(code, underlying: .message("fprintd is not running on the system bus"))
        let authenticator = UnavailableAuthenticator(reason: reason)
        #expect(throws: reason) { try authenticator.currentEnrollment() }
        for check in AuthenticatorConformance.Check.allCases {
            try await AuthenticatorConformance(authenticator: authenticator, policy: .biometryCurrentSet, prepareMatch: {}).run(check)
        }
    }

    @Test func passwordPoliciesUseTheOwnerAuthentication() async throws {
        let calls = LockedValue(0)
        let authenticator = UnavailableAuthenticator(reason: Self.reason, owner: Self.owner(.success(()), calls: calls))
        let authorization = try await authenticator.authenticate(for: .devicePasscode, prompt: .default)
        #expect(authorization.policy == .devicePasscode)
        #expect(authorization.enrollment == nil)
        try await authenticator.authenticateOwner(prompt: .default)
        #expect(calls.withLock { $0 } == 2)

        let failing = UnavailableAuthenticator(reason: Self.reason, owner: Self.owner(.failure(.authenticationFailed)))
        await #expect(throws: VaultError.authenticationFailed) {
            _ = try await failing.authenticate(for: .userPresence, prompt: .default)
        }
    }

    @Test func withoutOwnerAuthenticationPasswordsAreNotSet() async throws {
        let authenticator = UnavailableAuthenticator(reason: Self.reason)
        #expect(authenticator.availability(for: .devicePasscode) == .unavailable(.passcodeNotSet))
        await #expect(throws: VaultError.passcodeNotSet) { try await authenticator.authenticateOwner(prompt: .default) }
    }

    @Test func theDeferredAuthenticatorChoosesOnceAndOnlyWhenUsed() throws {
        let choices = LockedValue(0)
        let deferred = DeferredAuthenticator {
            choices.withLock { $0 += 1 }
            return UnavailableAuthenticator(reason: Self.reason)
        }
        #expect(choices.withLock { $0 } == 0, "building it must not probe")
        #expect(deferred.availability(for: .biometryAny) == .unavailable(Self.reason))
        #expect(deferred.biometryType == .none)
        _ = try deferred.currentEnrollment()
        #expect(choices.withLock { $0 } == 1)
    }

    /// The availability call that makes the choice is answered from the probe behind it (one fprintd
    /// probe, not two, for a plain read); every later call, and a policy the probe said nothing about,
    /// asks the chosen authenticator.
    @Test func theChoosingAvailabilityCallIsAnsweredByTheProbe() {
        let asked = LockedValue(0)
        let chosen = CountingAuthenticator(wrapped: UnavailableAuthenticator(reason: Self.reason), asked: asked)
        let deferred = DeferredAuthenticator(choosing: {
            DeferredAuthenticator.Choice(
                authenticator: chosen, observedAvailability: { $0 == .devicePasscode ? nil : .available })
        })
        #expect(deferred.availability(for: .biometryCurrentSet) == .available)
        #expect(asked.withLock { $0 } == 0, "the probe's answer must not be asked for twice")
        #expect(deferred.availability(for: .biometryCurrentSet) == .unavailable(Self.reason))
        #expect(asked.withLock { $0 } == 1)

        let owner = DeferredAuthenticator(choosing: {
            DeferredAuthenticator.Choice(
                authenticator: chosen, observedAvailability: { $0 == .devicePasscode ? nil : .available })
        })
        #expect(owner.availability(for: .devicePasscode) == .unavailable(.passcodeNotSet))
        #expect(asked.withLock { $0 } == 2)
    }

    /// `startProbing(startingThread:)` (the library's platform default calls it while it connects to the
    /// store) runs the probe on the thread it starts and returns while it runs; the next call waits for
    /// that probe instead of starting a second one, and is answered from its observation.
    @Test func aStartedProbeRunsInTheBackgroundOnce() async {
        let probes = LockedValue(0)
        let release = DispatchSemaphore(value: 0)
        let asked = LockedValue(0)
        let chosen = CountingAuthenticator(wrapped: UnavailableAuthenticator(reason: Self.reason), asked: asked)
        let deferred = DeferredAuthenticator(choosing: {
            probes.withLock { $0 += 1 }
            release.wait()  // the probe is still running while the test checks below
            return DeferredAuthenticator.Choice(authenticator: chosen, observedAvailability: { _ in .available })
        })
        deferred.startProbing(startingThread: LinuxAuthAdapter.startProbeThread)  // returns although the probe cannot finish yet
        deferred.startProbing(startingThread: LinuxAuthAdapter.startProbeThread)
        await #expect(Self.eventually { probes.withLock { $0 } == 1 }, "the probe did not start in the background")
        release.signal()
        #expect(deferred.availability(for: .biometryCurrentSet) == .available)
        #expect(asked.withLock { $0 } == 0, "answered from the probe's observation")
        #expect(probes.withLock { $0 } == 1)
    }

    /// When no thread can be started, `startProbing(startingThread:)` runs the probe itself before it
    /// returns, once, and the next call is answered from that probe.
    @Test func aProbeThatGetsNoThreadRunsAtOnce() {
        let probes = LockedValue(0)
        let asked = LockedValue(0)
        let chosen = CountingAuthenticator(wrapped: UnavailableAuthenticator(reason: Self.reason), asked: asked)
        let deferred = DeferredAuthenticator(choosing: {
            probes.withLock { $0 += 1 }
            return DeferredAuthenticator.Choice(authenticator: chosen, observedAvailability: { _ in .available })
        })
        let noThread: (@escaping @Sendable () -> Void) -> Bool = { _ in false }
        deferred.startProbing(startingThread: noThread)
        #expect(probes.withLock { $0 } == 1, "the probe did not run when no thread could start")
        deferred.startProbing(startingThread: noThread)
        #expect(deferred.availability(for: .biometryCurrentSet) == .available)
        #expect(probes.withLock { $0 } == 1)
        #expect(asked.withLock { $0 } == 0, "answered from the probe's observation")
    }

    /// A probe started early may be old when the first call comes: past ``DeferredAuthenticator/observationLifetime``
    /// its observation is not used, and the chosen authenticator is asked.
    @Test(arguments: [(Duration.milliseconds(500), true), (Duration.seconds(2), false)])
    func theObservationIsUsedOnlyWhileItIsRecent(age: Duration, answeredByTheProbe: Bool) {
        let asked = LockedValue(0)
        let chosen = CountingAuthenticator(wrapped: UnavailableAuthenticator(reason: Self.reason), asked: asked)
        // The probe reads the clock when it ends; the caller reads it `age` later.
        let readings = LockedValue([Duration.zero, age])
        let clock = VaultClock { readings.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] } }
        let deferred = DeferredAuthenticator(
            choosing: { DeferredAuthenticator.Choice(authenticator: chosen, observedAvailability: { _ in .available }) },
            clock: clock)
        let answer = deferred.availability(for: .biometryAny)
        #expect(answer == (answeredByTheProbe ? .available : .unavailable(Self.reason)))
        #expect(asked.withLock { $0 } == (answeredByTheProbe ? 0 : 1))
    }

    /// Polls `condition` for up to 10 s: a liveness bound for background work, not a timing assertion.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .microseconds(10_000))
        }
        return condition()
    }

    @Test func theDiagnosisNamesEveryComponentAndPicksOneStore() {
        let diagnosis = VaultConfiguration.platformDiagnosis(interaction: .noninteractive)
        // No vault service installed here: it is listed, unusable, and not picked.
        #expect(diagnosis.components(.store).map(\.name) == ["service", "secret-service", "file"])
        #expect(diagnosis.components(.authenticator).map(\.name) == ["fprintd"])
        #expect(diagnosis.components(.ownerAuthentication).map(\.name) == ["pam", "polkit"])
        #expect(diagnosis.components(.store).filter(\.isSelected).count == 1)
        for component in diagnosis.components where !component.isUsable {
            #expect(component.errorCode != nil, "\(component.name) is unusable without a reason code")
            #expect(!component.detail.isEmpty)
        }
        // Without a terminal, PAM cannot ask for the password.
        let pam = diagnosis.components(.ownerAuthentication).first { $0.name == "pam" }
        #expect(pam?.isUsable == false)
    }
}

/// Counts the `availability(for:)` calls that reach the wrapped authenticator.
private struct CountingAuthenticator: Authenticator {
    let wrapped: any Authenticator
    let asked: LockedValue<Int>

    var biometryType: BiometryType { wrapped.biometryType }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        asked.withLock { $0 += 1 }
        return wrapped.availability(for: policy)
    }

    func currentEnrollment() throws -> EnrollmentFingerprint? { try wrapped.currentEnrollment() }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        try await wrapped.authenticate(for: policy, prompt: prompt)
    }

    func authenticateOwner(prompt: PromptText) async throws {
        try await wrapped.authenticateOwner(prompt: prompt)
    }
}
#endif
