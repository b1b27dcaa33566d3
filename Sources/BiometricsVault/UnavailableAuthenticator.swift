/// An authenticator for a machine without usable biometrics: every biometric policy is unavailable for
/// the given reason, so vaults are `.empty` / `.keychain`.
///
/// When owner authentication (the login password through PAM or polkit) is supplied, `.userPresence`
/// and `.devicePasscode` are satisfied by it, and ``authenticateOwner(prompt:)`` uses it.
public struct UnavailableAuthenticator: Authenticator {
    /// Owner authentication by password: a name for diagnostics and the two operations it offers.
    public struct OwnerAuthentication: Sendable {
        /// `"pam"`, `"polkit"`, ...
        public var name: String
        /// Whether owner authentication can run now, without prompting.
        public var availability: @Sendable () -> AuthenticatorAvailability
        /// Prompts once for the owner's password; throws `userCancel`, `authenticationFailed`, ...
        public var authenticate: @Sendable (PromptText) async throws -> Void

        public init(
            name: String,
            availability: @escaping @Sendable () -> AuthenticatorAvailability,
            authenticate: @escaping @Sendable (PromptText) async throws -> Void
        ) {
            self.name = name
            self.availability = availability
            self.authenticate = authenticate
        }
    }

    /// Why biometrics are unavailable (`biometryNotAvailable`, `biometryNotEnrolled`, ...).
    public let reason: VaultError
    /// Owner authentication, if any.
    public let owner: OwnerAuthentication?

    public init(reason: VaultError, owner: OwnerAuthentication? = nil) {
        self.reason = reason
        self.owner = owner
    }

    public var biometryType: BiometryType { .none }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if policy.requiresBiometry { return .unavailable(reason) }
        guard let owner else { return .unavailable(Self.noOwnerAuthentication) }
        return owner.availability()
    }

    /// `nil` (nothing enrolled) only when that is the reason; otherwise the enrolled set is unknown, so this
    /// throws the reason, as ``Authenticator`` asks (a reader that cannot be asked is not an enrollment change).
    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        if reason.code == .biometryNotEnrolled { return nil }
        throw reason
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if policy.requiresBiometry { throw reason }
        guard let owner else { throw Self.noOwnerAuthentication }
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        try await owner.authenticate(prompt)
        return Authorization(policy: policy, enrollment: nil)
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        guard let owner else { throw Self.noOwnerAuthentication }
        try await owner.authenticate(prompt)
    }

    static let noOwnerAuthentication = VaultError(
        .passcodeNotSet, underlying: .message("no owner authentication (PAM on a terminal or a polkit agent)"))
}
