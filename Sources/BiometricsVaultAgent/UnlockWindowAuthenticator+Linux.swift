#if os(Linux)
import BiometricsVaultCore

/// Wraps an authenticator with the unlock-window agent: inside an open window for this terminal's scope,
/// ``authenticate(for:prompt:)`` returns without prompting; otherwise it prompts through the wrapped
/// authenticator and, on success, opens the window for ``seconds``. Opt-in: set it as a
/// `VaultConfiguration`'s authenticator.
///
/// A window is kept per scope (controlling terminal and session, decided by the agent), per service and
/// per policy: a window opened by the password (`userPresence`) never opens a fingerprint-only item. For
/// `biometryCurrentSet` the window remembers the enrolled set that matched and is ignored once
/// ``Authenticator/currentEnrollment()`` differs. Any failure to reach the agent means "no window": the
/// user is asked as without windows.
public struct UnlockWindowAuthenticator: Authenticator {
    public let wrapped: any Authenticator
    public let client: UnlockWindowAgentClient
    public let service: String
    public let seconds: Int

    public init(wrapping wrapped: any Authenticator, client: UnlockWindowAgentClient, service: String, seconds: Int) {
        self.wrapped = wrapped
        self.client = client
        self.service = service
        self.seconds = seconds
    }

    public var biometryType: BiometryType { wrapped.biometryType }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        wrapped.availability(for: policy)
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        try wrapped.currentEnrollment()
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if let window = openWindow(for: policy) {
            return Authorization(policy: policy, enrollment: window.enrollment.flatMap(EnrollmentFingerprint.init))
        }
        let authorization = try await wrapped.authenticate(for: policy, prompt: prompt)
        // Best effort: without an agent (or without a terminal) the next command prompts again.
        _ = try? client.send(
            .open(service: service, policy: policy.rawValue, seconds: seconds, enrollment: authorization.enrollment?.value),
            startingAgent: true)
        return authorization
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        try await wrapped.authenticateOwner(prompt: prompt)
    }

    /// The open window of this scope for `policy`, if the agent runs and has one that still fits the
    /// enrolled set.
    private func openWindow(for policy: ProtectionPolicy) -> UnlockWindowReport? {
        guard case .window(let window?)? = try? client.send(.query(service: service, policy: policy.rawValue), startingAgent: false)
        else { return nil }
        if policy.bindsEnrollment {
            guard let current = try? wrapped.currentEnrollment(), current.value == window.enrollment else { return nil }
        }
        return window
    }
}
#endif
