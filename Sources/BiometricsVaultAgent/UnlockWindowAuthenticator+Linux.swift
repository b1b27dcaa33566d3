#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess

/// Wraps an authenticator with the unlock-window agent: inside an open window for this terminal's scope,
/// ``authenticate(for:prompt:)`` returns without prompting; otherwise it prompts through the wrapped
/// authenticator and, on success, opens the window for ``seconds``. Opt-in: set it as a
/// `VaultConfiguration`'s authenticator.
///
/// A window is kept per scope (controlling terminal and session, decided by the agent), per service and
/// per policy: a window opened by the password (`userPresence`) never opens a fingerprint-only item. For
/// `biometryCurrentSet` the window remembers the enrolled set that matched; once
/// ``Authenticator/currentEnrollment()`` differs, it is closed at the agent (and not used). Any failure
/// to reach the agent means "no window": the user is asked as without windows.
///
/// The client compares, not the agent: the agent would otherwise need its own fprintd connection (and
/// polkit's consent) to read the enrolled set, while the client reads it anyway for the item. Trusting
/// the client's word is harmless, since closing only ever takes a window away, and the agent closes the
/// asking terminal's window only (the scope comes from the kernel, as for every request).
package struct UnlockWindowAuthenticator: Authenticator {
    package let wrapped: any Authenticator
    package let client: UnlockWindowAgentClient
    package let service: String
    package let seconds: Int

    package init(wrapping wrapped: any Authenticator, client: UnlockWindowAgentClient, service: String, seconds: Int) {
        self.wrapped = wrapped
        self.client = client
        self.service = service
        self.seconds = seconds
    }

    package var biometryType: BiometryType { wrapped.biometryType }

    package func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        wrapped.availability(for: policy)
    }

    /// The wrapped authenticator's enrolled set; also closes this terminal's windows for ``service`` that
    /// remember another set (a read of a `biometryCurrentSet` item asks this before it would prompt, and
    /// an invalidated item never prompts).
    package func currentEnrollment() throws -> EnrollmentFingerprint? {
        let current = try wrapped.currentEnrollment()
        if case .status(_, let windows)? = try? client.send(.status, startingAgent: false) {
            for window in windows where window.service == service {
                closeIfEnrolledOtherwise(window, current: current)
            }
        }
        return current
    }

    package func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
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

    package func authenticateOwner(prompt: PromptText) async throws {
        try await wrapped.authenticateOwner(prompt: prompt)
    }

    /// The open window of this scope for `policy`, if the agent runs and has one that still fits the
    /// enrolled set (one that does not is closed). A process without a controlling terminal has no
    /// scope and asks nothing: whatever listens on the socket cannot give it a window.
    private func openWindow(for policy: ProtectionPolicy) -> UnlockWindowReport? {
        guard PeerScope.thisProcessHasTerminal,
            case .window(let window?)? = try? client.send(.query(service: service, policy: policy.rawValue), startingAgent: false)
        else { return nil }
        if policy.bindsEnrollment {
            // An unreadable set is no window, but not a reason to close it; no set enrolled is.
            let current: EnrollmentFingerprint?
            do { current = try wrapped.currentEnrollment() } catch { return nil }
            guard !closeIfEnrolledOtherwise(window, current: current) else { return nil }
        }
        return window
    }

    /// Closes `window` at the agent when its policy binds the enrolled set and `current` is another one
    /// (or none); whether it did.
    @discardableResult
    private func closeIfEnrolledOtherwise(_ window: UnlockWindowReport, current: EnrollmentFingerprint?) -> Bool {
        guard ProtectionPolicy(rawValue: window.policy)?.bindsEnrollment == true, current?.value != window.enrollment else { return false }
        // Best effort: if the agent cannot be reached, the window is still never used (checked on each use).
        _ = try? client.send(.close(service: service, policy: window.policy), startingAgent: false)
        return true
    }
}
#endif
