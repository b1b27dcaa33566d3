/// Decides "it is the owner": Face ID / Touch ID / Optic ID through LocalAuthentication, a fingerprint
/// through fprintd, the login password through PAM or polkit, or the simulated device's script.
///
/// # Implementation requirements
///
/// ``AuthenticatorConformance`` (in `BiometricsVaultTesting`) checks what it can; run it from your
/// backend's tests.
///
/// 1. **Probes never prompt.** ``availability(for:)``, ``currentEnrollment()`` and ``biometryType`` only
///    ask the platform; they never show UI or wait for a sensor.
/// 2. **One call, at most one prompt.** ``authenticate(for:prompt:)`` shows one prompt (which may allow
///    several scans inside it) and returns an ``Authorization`` or throws a `VaultError`:
///    `userCancel` / `systemCancel` for a cancel (including Swift task cancellation, which must end the
///    prompt promptly and release any device), `userFallback` when the user chose the prompt's fallback
///    button instead of biometrics, `authenticationFailed` for a non-match, `biometryLockout`
///    after five consecutive failures, `biometryNotAvailable`, `biometryNotEnrolled`, `passcodeNotSet`.
/// 3. **Lockout is counted by the authenticator** (the OS on Apple, our own persisted counter on Linux):
///    a cancel or a fallback never counts as a failed attempt, a match resets the count,
///    and a successful ``authenticateOwner(prompt:)`` clears a lockout.
/// 4. **Policies map as documented**: `.biometryCurrentSet` / `.biometryAny` accept biometrics only;
///    `.userPresence` accepts biometrics, else the owner's passcode/password; `.devicePasscode` accepts
///    the passcode/password only.
/// 5. **Enrollment.** ``currentEnrollment()`` identifies the enrolled biometric set (or `nil` when none is
///    enrolled), and throws when the set cannot be read now (no sensor, its daemon not answering, lockout);
///    the returned ``Authorization/enrollment`` is the set that matched. The vault never reads an unknown
///    set as a change: a `nil` invalidates `.biometryCurrentSet` items only when
///    ``availability(for:)`` agrees that nothing is enrolled (`biometryNotEnrolled`) or says biometrics
///    are available; with any other unavailability such items read as locked.
/// 6. **Cancellation of a returned authorization.** ``Authorization/invalidate()`` ends its platform
///    context (Apple: `LAContext.invalidate()`); after that it must not authorize anything.
public protocol Authenticator: Sendable {
    /// The biometric sensor this authenticator drives (`.none` when it has none).
    var biometryType: BiometryType { get }

    /// Whether `policy` can be evaluated now, without prompting.
    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability

    /// The currently enrolled biometric set, without prompting; `nil` when nothing is enrolled; throws when
    /// it cannot be read now.
    func currentEnrollment() throws -> EnrollmentFingerprint?

    /// Prompts once for `policy`.
    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization

    /// Authenticates the owner by passcode / login password (not biometrics); clears a biometric lockout.
    func authenticateOwner(prompt: PromptText) async throws
}

/// Whether an authenticator can evaluate a policy right now.
public enum AuthenticatorAvailability: Hashable, Sendable {
    case available
    /// Not now, for the given reason (`biometryNotAvailable`, `biometryNotEnrolled`, `biometryLockout`,
    /// `passcodeNotSet`, ...), with the platform's detail.
    case unavailable(VaultError)

    public var isAvailable: Bool {
        switch self {
        case .available: true
        case .unavailable: false
        }
    }
}

/// A backend's platform context behind an ``Authorization`` (Apple: the evaluated `LAContext`).
public protocol AuthorizationContext: Sendable {
    /// Ends the context: it must not authorize anything afterwards.
    func invalidate()
}

/// The result of a successful authentication: proof, for one session, that the owner is present.
///
/// Shared by every copy of an unlocked vault handle; ``invalidate()`` (called by `lock()`) ends it for all.
public final class Authorization: Sendable {
    /// The policy that was satisfied.
    public let policy: ProtectionPolicy
    /// The enrolled biometric set that matched, when biometrics were used.
    public let enrollment: EnrollmentFingerprint?
    /// The backend's platform context, if it has one.
    public let context: (any AuthorizationContext)?
    private let state = LockedValue(true)

    public init(policy: ProtectionPolicy, enrollment: EnrollmentFingerprint?, context: (any AuthorizationContext)? = nil) {
        self.policy = policy
        self.enrollment = enrollment
        self.context = context
    }

    /// Whether ``invalidate()`` has not been called yet.
    public var isValid: Bool { state.withLock { $0 } }

    /// Ends this authorization and its platform context. Idempotent.
    public func invalidate() {
        let wasValid = state.withLock { valid in
            defer { valid = false }
            return valid
        }
        if wasValid { context?.invalidate() }
    }
}

/// What a check of the owner asks for.
package enum AuthenticationCheck: String, Sendable {
    case finger
    case password
}

/// An authenticator that may answer ``Authenticator/authenticate(for:prompt:)`` without any check (the
/// vault service, inside an unlock window), and so says when a check begins: a program shows its own
/// prompt ("touch the fingerprint reader") then, and never for a call answered without one.
package protocol CheckAnnouncingAuthenticator: Authenticator {
    /// ``Authenticator/authenticate(for:prompt:)``, calling `checkStarted` (on any thread, before it
    /// returns) as each check of the owner begins.
    func authenticate(
        for policy: ProtectionPolicy, prompt: PromptText, checkStarted: @escaping @Sendable (AuthenticationCheck) -> Void
    ) async throws -> Authorization
}
