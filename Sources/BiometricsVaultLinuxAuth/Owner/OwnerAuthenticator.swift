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
#endif
