#if os(Linux)
import BiometricsVaultCore

/// Authenticates the device owner by something other than biometrics: the login password through PAM
/// (``PAMOwnerAuthenticator``) or the desktop's polkit agent (``PolkitOwnerAuthenticator``).
///
/// ``FingerprintAuthenticator`` uses one for `.devicePasscode`, as the `.userPresence` fallback, and for
/// `reauthenticateOwner()`, which clears a fingerprint lockout.
///
/// Implementations throw `VaultError`: `authenticationFailed` for a wrong password, `userCancel` /
/// `systemCancel` for a cancel (including Swift task cancellation), `interactionNotAllowed` when no
/// prompt can be shown, `passcodeNotSet` when owner authentication is not set up on this machine.
public protocol OwnerAuthenticator: Sendable {
    /// Asks the owner to authenticate, once.
    func authenticateOwner(prompt: PromptText) async throws
}

/// An owner authenticator used directly as a vault's `Authenticator`: no biometrics, so it satisfies the
/// password policies (`.userPresence`, `.devicePasscode`) by authenticating the owner.
extension OwnerAuthenticator where Self: Authenticator {
    public var biometryType: BiometryType { .none }

    public func currentEnrollment() throws -> EnrollmentFingerprint? { nil }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if case .unavailable(let reason) = availability(for: policy) { throw reason }
        try await authenticateOwner(prompt: prompt)
        return Authorization(policy: policy, enrollment: nil)
    }
}
#endif
