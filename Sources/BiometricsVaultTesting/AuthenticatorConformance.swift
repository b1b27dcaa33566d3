import BiometricsVaultCore

/// The checks every `Authenticator` backend must pass (see the protocol's "Implementation requirements").
///
/// The backend supplies `prepareMatch`, which arranges for the next prompt to succeed (the simulated
/// device enqueues `.match`; the fprintd tests schedule a matching scan on the virtual sensor).
public struct AuthenticatorConformance: Sendable {
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        case probesAreStable
        case unavailableMeansAuthenticateThrowsTheSameCode
        case successYieldsAValidAuthorization
        case invalidateEndsTheAuthorization
        case enrollmentMatchesCurrentEnrollment
        case cancelledTaskThrowsCancel

        public var description: String { rawValue }
    }

    let authenticator: any Authenticator
    let policy: ProtectionPolicy
    let prepareMatch: @Sendable () async throws -> Void

    public init(
        authenticator: any Authenticator,
        policy: ProtectionPolicy = .biometryCurrentSet,
        prepareMatch: @escaping @Sendable () async throws -> Void
    ) {
        self.authenticator = authenticator
        self.policy = policy
        self.prepareMatch = prepareMatch
    }

    public func runAll() async throws {
        for check in Check.allCases { try await run(check) }
    }

    public func run(_ check: Check) async throws {
        let fail = { (message: String) in ConformanceFailure(check: check.rawValue, message: message) }
        let prompt = PromptText(reason: "BiometricsVault conformance check")
        switch check {
        case .probesAreStable:
            // An enrolled set that cannot be read now throws (the same code both times).
            let enrollment = { () -> (threw: Bool, EnrollmentFingerprint?, VaultError.Code?) in
                do { return (false, try authenticator.currentEnrollment(), nil) } catch {
                    return (true, nil, (error as? VaultError)?.code)
                }
            }
            guard authenticator.availability(for: policy) == authenticator.availability(for: policy),
                enrollment() == enrollment(),
                authenticator.biometryType == authenticator.biometryType
            else { throw fail("probes changed between two calls") }

        case .unavailableMeansAuthenticateThrowsTheSameCode:
            guard case .unavailable(let reason) = authenticator.availability(for: policy) else { return }
            do {
                _ = try await authenticator.authenticate(for: policy, prompt: prompt)
                throw fail("authenticate succeeded although availability said \(reason.code)")
            } catch let error as VaultError {
                guard error.code == reason.code else { throw fail("availability said \(reason.code), authenticate threw \(error.code)") }
            }

        case .successYieldsAValidAuthorization:
            guard authenticator.availability(for: policy).isAvailable else { return }
            try await prepareMatch()
            let authorization = try await authenticator.authenticate(for: policy, prompt: prompt)
            guard authorization.isValid else { throw fail("a fresh authorization is not valid") }
            guard authorization.policy == policy else { throw fail("authorization for \(authorization.policy), asked \(policy)") }

        case .invalidateEndsTheAuthorization:
            guard authenticator.availability(for: policy).isAvailable else { return }
            try await prepareMatch()
            let authorization = try await authenticator.authenticate(for: policy, prompt: prompt)
            authorization.invalidate()
            authorization.invalidate()
            guard !authorization.isValid else { throw fail("invalidate() did not end the authorization") }

        case .enrollmentMatchesCurrentEnrollment:
            guard policy.requiresBiometry, authenticator.availability(for: policy).isAvailable else { return }
            try await prepareMatch()
            let authorization = try await authenticator.authenticate(for: policy, prompt: prompt)
            guard authorization.enrollment == (try authenticator.currentEnrollment()) else {
                throw fail("the matched enrollment differs from currentEnrollment()")
            }

        case .cancelledTaskThrowsCancel:
            let authenticator = self.authenticator
            let policy = self.policy
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await authenticator.authenticate(for: policy, prompt: prompt)
            }
            do {
                _ = try await task.value
                throw fail("authenticate in a cancelled task succeeded")
            } catch let error as VaultError {
                let acceptable: Set<VaultError.Code> = [.systemCancel, .userCancel]
                guard acceptable.contains(error.code) || !authenticator.availability(for: policy).isAvailable else {
                    throw fail("a cancelled task threw \(error.code), not a cancel")
                }
            }
        }
    }
}
