#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess

/// Owner authentication by the login password, through PAM.
///
/// Uses the packaged PAM service `biometrics-vault` (`Resources/linux/biometrics-vault`, installed in
/// `/etc/pam.d/` by `biometrics-vault setup`), which includes the distribution's `common-auth` and
/// `common-account` stacks. An unprivileged process can check only its own user's password (pam_unix
/// asks the setgid `unix_chkpwd`).
///
/// The caller supplies the conversation: the CLI prints ``PAMMessage/Style/textInfo`` and
/// ``PAMMessage/Style/errorMessage`` lines and reads answers to prompts from the terminal without echo.
///
/// As an ``Authenticator`` it offers no biometrics: `.devicePasscode` and `.userPresence` are
/// satisfied by the password, the biometric-only policies are `biometryNotAvailable`.
public struct PAMOwnerAuthenticator: OwnerAuthenticator, Authenticator {
    /// The PAM service name (the file in `/etc/pam.d/`).
    public let service: String
    /// Whose password is checked.
    public let user: String
    private let conversation: PAMConversation

    /// - Parameters:
    ///   - service: the PAM service; default `biometrics-vault`.
    ///   - user: whose password to check; default the user running this process.
    ///   - conversation: shows PAM's messages and answers its prompts (return `nil` to decline).
    public init(
        service: String = "biometrics-vault", user: String? = nil,
        conversation: @escaping @Sendable (PAMMessage) async throws -> String?
    ) {
        self.service = service
        self.user = user ?? FingerprintAuthenticator.currentUserName()
        self.conversation = conversation
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        let service = self.service
        let user = self.user
        let conversation = self.conversation
        let stop = StopRequest()
        try await withTaskCancellationHandler {
            try await DedicatedThread.run(name: "pam-authenticate") { () throws(VaultError) in
                try PAMTransaction.authenticate(service: service, user: user, conversation: conversation, stop: stop)
            }
        } onCancel: {
            stop.stop(.taskCancelled)
        }
    }

    // MARK: Authenticator

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        policy.requiresBiometry
            ? .unavailable(VaultError(.biometryNotAvailable, underlying: .message("PAM owner authentication has no biometrics")))
            : .available
    }

}
#endif
