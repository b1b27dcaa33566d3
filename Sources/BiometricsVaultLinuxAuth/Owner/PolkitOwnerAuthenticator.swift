#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultDBus
import BiometricsVaultProcess

/// Owner authentication through polkit: `CheckAuthorization` on our own action, answered by the
/// session's authentication agent (the desktop's dialog, or `pkttyagent` on a terminal).
///
/// The packaged action (`Resources/linux/io.github.biometricsvault.policy`) uses `auth_self`, never
/// `auth_self_keep`, so every call asks again. The agent runs PAM's `polkit-1` stack, so whatever that
/// stack accepts (password, `pam_fprintd`, a security key) works here.
///
/// Errors: `interactionNotAllowed` when no agent can answer (SSH, CI), `passcodeNotSet` when polkit or
/// the policy is missing (see ``probe(actionID:)``), `userCancel` when the dialog is dismissed,
/// `authenticationFailed` when the agent gave up, `systemCancel` on timeout or task cancellation
/// (which also dismisses the dialog through `CancelCheckAuthorization`).
public struct PolkitOwnerAuthenticator: OwnerAuthenticator, Authenticator {
    /// The action BiometricsVault ships.
    public static let defaultActionID = "io.github.biometricsvault.authenticate-owner"

    public let actionID: String
    /// How long to wait for the agent's answer.
    public let timeout: Duration

    /// Whose password is asked: this process's user, or a service's caller's (the vault service's).
    let subject: PolkitSubject

    public init(actionID: String = PolkitOwnerAuthenticator.defaultActionID, timeout: Duration = .seconds(120)) {
        self.init(actionID: actionID, timeout: timeout, subject: .thisProcess)
    }

    /// Owner authentication of `subject`: polkit asks the subject's own agent for the subject's user's
    /// password (`auth_self`). Checking a subject of another user needs the action's
    /// `org.freedesktop.policykit.owner` annotation to name this process's user.
    package init(actionID: String, timeout: Duration, subject: PolkitSubject) {
        self.actionID = actionID
        self.timeout = timeout
        self.subject = subject
    }

    /// Whether polkitd runs and the action is installed, without prompting.
    public static func probe(actionID: String = defaultActionID) -> PolkitStatus {
        PolkitAuthority.status(actionID: actionID)
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        if let error = Self.probe(actionID: actionID).error { throw error }
        let actionID = self.actionID
        let timeout = self.timeout
        let subject = self.subject
        let reason = prompt.reason
        let cancellation = DBusCancellation()
        let stop = StopRequest()
        try await withTaskCancellationHandler {
            try await DedicatedThread.run(name: "polkit-check") { () throws(VaultError) in
                try PolkitAuthority.checkAuthorization(
                    actionID: actionID, subject: subject, reason: reason, timeout: timeout,
                    cancellation: cancellation, stop: stop)
            }
        } onCancel: {
            stop.stop(.taskCancelled)
            cancellation.cancel()
        }
    }

    // MARK: Authenticator

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if policy.requiresBiometry {
            return .unavailable(VaultError(.biometryNotAvailable, underlying: .message("polkit owner authentication has no biometrics")))
        }
        if let error = Self.probe(actionID: actionID).error { return .unavailable(error) }
        return .available
    }

}
#endif
