// What the person at this process can actually do decides how it authenticates: over SSH nobody can
// touch the reader, and after 5 failed attempts the reader refuses until the owner's password clears it.
// Platform-free: it routes through the `Authenticator` protocol and reads only the environment.

/// A session over SSH, told by the variables sshd sets for it.
package enum RemoteSession {
    /// The variables sshd sets for a session, in the order they are checked.
    package static let variables = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]

    /// The first of ``variables`` that is set (and not empty), or `nil` in a local session.
    ///
    /// logind's `Remote` session property is not read: sshd's variables are set whenever it is, and
    /// reading them needs no system bus.
    package static func variable() -> String? {
        variables.first(where: EnvironmentVariable.isSet)
    }

    /// Whether this process runs in a session over SSH.
    package static var isRemote: Bool { variable() != nil }
}

/// Where a process runs, as far as the fingerprint reader and the owner's password are concerned.
public struct SessionKind: Sendable, Equatable {
    /// Over SSH: nobody can touch the reader of this machine.
    public var isRemote: Bool
    /// Whether owner authentication (the login password) can be asked here: PAM with a terminal, or polkit.
    public var ownerAuthenticationUsable: Bool

    public init(isRemote: Bool, ownerAuthenticationUsable: Bool) {
        self.isRemote = isRemote
        self.ownerAuthenticationUsable = ownerAuthenticationUsable
    }

    /// This process's session: remote when ``RemoteSession/variable()`` finds an SSH variable; owner
    /// authentication usable when `ownerAuthenticationName` (``PlatformSelection/ownerAuthenticationName``)
    /// is `"pam"` and the process has a controlling terminal, or is any other name but `"none"` (polkit).
    public static func current(ownerAuthenticationName: String) -> SessionKind {
        let owner: Bool
        switch ownerAuthenticationName {
        case "pam": owner = PlatformInteraction.terminal.hasTerminal
        case "none": owner = false
        default: owner = true
        }
        return SessionKind(isRemote: RemoteSession.isRemote, ownerAuthenticationUsable: owner)
    }
}

/// The outermost authenticator of a vault configuration: the session decides the route, so nobody
/// waits for a finger that cannot be given.
///
/// - Remote session (``SessionKind/isRemote``) with a fingerprint reader: the reader is never waited for.
///   Policies that accept the password (`.userPresence`, `.devicePasscode`) go straight to owner
///   authentication (`interactionNotAllowed` when it cannot be asked); fingerprint-only policies fail at
///   once with `biometryNotAvailable`, and ``availability(for:)`` reports them unavailable.
/// - Fingerprints locked out (`biometryLockout`, 5 failed attempts), before or during a fingerprint-only
///   authentication: owner authentication clears the lockout, then the operation's own prompt runs once
///   more; without owner authentication it fails at once with `biometryLockout` and
///   ``Guidance/lockoutWayOut``.
/// - No reader can be asked for a fingerprint-only policy (`biometryNotAvailable` from a non-fingerprint
///   authenticator): the error says the item is kept (``readerUnanswered(_:)``).
///
/// Everything else passes to `prompting` unchanged.
public struct SessionAwareAuthenticator: Authenticator {
    /// The texts that tell the user the way out; an app names its own screens or commands.
    public struct Guidance: Sendable, Equatable {
        /// How to clear a lockout when no owner authentication can be asked here (ends the error's message).
        public var lockoutWayOut: String
        /// Where to see why no reader can be asked (in parentheses at the end of the error's message).
        public var readerDiagnosis: String

        public init(lockoutWayOut: String, readerDiagnosis: String) {
            self.lockoutWayOut = lockoutWayOut
            self.readerDiagnosis = readerDiagnosis
        }

        /// Names library calls only.
        public static let library = Guidance(
            lockoutWayOut: "clear it with the login password (SessionAwareAuthenticator.clearLockout) where a terminal or polkit agent can ask for it",
            readerDiagnosis: "`biometrics-vault doctor` shows what is missing")
    }

    /// What ``clearLockout()`` did.
    public enum LockoutClearance: Sendable, Equatable {
        /// The fingerprints were not locked out: nothing was asked.
        case notLockedOut
        /// The owner authenticated: the lockout is over.
        case cleared
    }

    /// The authenticator that prompts (an app's may show "Touch the reader"); all authentication goes through it.
    public let prompting: any Authenticator
    /// The platform authenticator under it, probed for lockout (the prompting one may skip probes).
    public let platform: any Authenticator
    public let session: SessionKind
    public let guidance: Guidance
    /// Shown before the owner is asked for the password to clear a lockout met during an authentication.
    public let announce: @Sendable (_ line: String) -> Void

    /// - Parameters:
    ///   - prompting: what authenticates; often `platform` itself.
    ///   - platform: what is asked whether the fingerprints are locked out (no prompt, reader not claimed).
    ///   - session: usually ``SessionKind/current(ownerAuthenticationName:)``.
    ///   - announce: gets one line before a lockout's password prompt; ignored by default.
    public init(
        prompting: any Authenticator, platform: any Authenticator, session: SessionKind, guidance: Guidance = .library,
        announce: @escaping @Sendable (_ line: String) -> Void = { _ in }
    ) {
        self.prompting = prompting
        self.platform = platform
        self.session = session
        self.guidance = guidance
        self.announce = announce
    }

    /// The reason shown when the owner is asked to clear a lockout.
    public static let unlockPrompt = PromptText(reason: "Unlock the fingerprint reader after failed attempts")

    public var biometryType: BiometryType { prompting.biometryType }

    /// `prompting`'s answer, except `biometryNotAvailable` for a fingerprint-only policy in a remote session.
    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if session.isRemote && Self.acceptsOnlyBiometrics(policy) && prompting.biometryType == .fingerprint {
            return .unavailable(Self.remoteError)
        }
        return prompting.availability(for: policy)
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        try prompting.currentEnrollment()
    }

    /// Routes as the type's description says.
    ///
    /// - Throws: `biometryNotAvailable` (remote session, fingerprint-only policy; or no reader can be
    ///   asked); `interactionNotAllowed` (remote session, no owner authentication here); `biometryLockout`
    ///   (locked out, no owner authentication here); otherwise what `prompting` throws.
    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        guard prompting.biometryType == .fingerprint else {
            do {
                return try await prompting.authenticate(for: policy, prompt: prompt)
            } catch let error as VaultError where error.code == .biometryNotAvailable && Self.acceptsOnlyBiometrics(policy) {
                throw readerUnanswered(error)
            }
        }
        if session.isRemote {
            guard !Self.acceptsOnlyBiometrics(policy) else { throw Self.remoteError }
            guard session.ownerAuthenticationUsable else {
                throw VaultError(.interactionNotAllowed, underlying: .message(
                    "this is a remote session (SSH), where the fingerprint reader cannot be touched, and there is no terminal to ask for the password"))
            }
            try await prompting.authenticateOwner(prompt: prompt)
            return Authorization(policy: policy, enrollment: nil)
        }
        if Self.acceptsOnlyBiometrics(policy), case .unavailable(let error) = platform.availability(for: .biometryAny),
            error.code == .biometryLockout
        {
            return try await recover(policy: policy, prompt: prompt)
        }
        do {
            return try await prompting.authenticate(for: policy, prompt: prompt)
        } catch let error as VaultError where error.code == .biometryLockout && Self.acceptsOnlyBiometrics(policy) {
            // That was the fifth failed attempt.
            return try await recover(policy: policy, prompt: prompt)
        }
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        try await prompting.authenticateOwner(prompt: prompt)
    }

    /// Whether the fingerprints are locked out now: `platform` is asked, with no prompt and without
    /// claiming the reader.
    public var isLockedOut: Bool {
        guard case .unavailable(let error) = platform.availability(for: .biometryAny) else { return false }
        return error.code == .biometryLockout
    }

    /// Ends a fingerprint lockout with owner authentication (the login password, prompt ``unlockPrompt``).
    ///
    /// - Returns: ``LockoutClearance/notLockedOut`` without asking anything when ``isLockedOut`` is false;
    ///   ``LockoutClearance/cleared`` once the owner authenticated.
    /// - Throws: `interactionNotAllowed` when the session cannot ask for owner authentication (nothing is
    ///   asked); what owner authentication throws (`userCancel`, `authenticationFailed`, ...), and then the
    ///   lockout stays.
    public func clearLockout() async throws -> LockoutClearance {
        guard isLockedOut else { return .notLockedOut }
        guard session.ownerAuthenticationUsable else {
            throw VaultError(.interactionNotAllowed, underlying: .message(
                "no terminal (PAM) or polkit agent to ask for the login password; run it on a terminal"))
        }
        try await prompting.authenticateOwner(prompt: Self.unlockPrompt)
        return .cleared
    }

    /// Lockout: the login password clears it, then the operation's own prompt runs once more.
    private func recover(policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        guard session.ownerAuthenticationUsable else {
            throw VaultError(.biometryLockout, underlying: .message(
                "fingerprints are locked out after \(FailedAttemptCounter.limit) failed attempts; \(guidance.lockoutWayOut)"))
        }
        announce("fingerprints are locked out after \(FailedAttemptCounter.limit) failed attempts: enter your login password to unlock them")
        try await prompting.authenticateOwner(prompt: Self.unlockPrompt)
        return try await prompting.authenticate(for: policy, prompt: prompt)
    }

    /// `error` (no reader can be asked: fprintd down or unreachable, no reader, biometrics not chosen)
    /// with the way out added: the item is kept, not invalidated, and opens again once a finger can be
    /// asked. The code and the platform's reason stay first.
    public func readerUnanswered(_ error: VaultError) -> VaultError {
        let wayOut = "; the item is kept: it opens with a finger once the fingerprint reader can be asked (\(guidance.readerDiagnosis))"
        let underlying: VaultError.Underlying
        switch error.underlying {
        case .gError(let domain, let code, let message)?: underlying = .gError(domain: domain, code: code, message: message + wayOut)
        case .dbus(let name, let message)?: underlying = .dbus(name: name, message: message + wayOut)
        case .message(let message)?: underlying = .message(message + wayOut)
        case let other?: underlying = .message("\(other)\(wayOut)")
        case nil: underlying = .message("no fingerprint reader can be asked\(wayOut)")
        }
        return VaultError(error.code, underlying: underlying)
    }

    private static func acceptsOnlyBiometrics(_ policy: ProtectionPolicy) -> Bool {
        switch policy {
        case .biometryAny, .biometryCurrentSet: true
        case .userPresence, .devicePasscode: false
        }
    }

    private static var remoteError: VaultError {
        VaultError(.biometryNotAvailable, underlying: .message(
            "this is a remote session (SSH): nobody can touch the fingerprint reader from here, and this item accepts only a fingerprint; run the command at the machine"))
    }
}
