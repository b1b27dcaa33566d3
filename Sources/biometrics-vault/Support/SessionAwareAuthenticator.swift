import BiometricsVault
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A session over SSH, told by the variables sshd sets for it.
enum RemoteSession {
    static let variables = ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"]

    /// The first SSH variable set, or `nil` in a local session.
    static func variable() -> String? {
        variables.first(where: EnvironmentVariable.isSet)
    }

    /// `doctor`'s line about the session.
    static func doctorLine() -> String {
        guard let variable = variable() else { return "session: local" }
        return "session: remote (\(variable) is set): the fingerprint reader is never waited for; items that accept "
            + "the password ask for it on the terminal, fingerprint-only items fail at once (exit 9)"
    }
}

/// Where this process runs, as far as the fingerprint reader is concerned.
struct SessionKind: Sendable, Equatable {
    /// Over SSH: nobody can touch the reader of this machine.
    var isRemote: Bool
    /// Whether owner authentication (the login password) can be asked here: PAM with a terminal, or polkit.
    var ownerAuthenticationUsable: Bool

    /// The SSH variables sshd sets for the session (`SSH_CONNECTION`, `SSH_CLIENT`, `SSH_TTY`).
    /// logind's `Remote` session property is not read: the CLI reaches the system bus only through the
    /// library, and sshd's variables are set whenever logind's property is.
    static func current(ownerAuthenticationName: String) -> SessionKind {
        let remote = RemoteSession.variable() != nil
        let owner: Bool
        switch ownerAuthenticationName {
        case "pam": owner = hasTerminal
        case "none": owner = false
        default: owner = true
        }
        return SessionKind(isRemote: remote, ownerAuthenticationUsable: owner)
    }

    /// Whether this process has a controlling terminal (where PAM asks for the password).
    static var hasTerminal: Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }
}

/// The CLI's outermost authenticator: what the terminal user can actually do decides the route.
/// - Fingerprints locked out (5 failed attempts): ask for the login password, then the operation's
///   prompt once more; with no way to ask, fail at once with the way out. Never show "Touch the
///   fingerprint reader" for a reader that will not be used.
/// - Remote session: never wait for a finger nobody can give. Policies that accept the password go
///   straight to it; fingerprint-only items fail at once (exit 9).
struct SessionAwareAuthenticator: Authenticator {
    /// The authenticator that prompts (shows the fingerprint line); all authentication goes through it.
    let prompting: any Authenticator
    /// The platform authenticator under it, probed for lockout (the prompting one may skip probes).
    let platform: any Authenticator
    let session: SessionKind

    static let lockoutWayOut = "run `biometrics-vault clear-lockout` on a terminal (it asks for your login password)"

    var biometryType: BiometryType { prompting.biometryType }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        if session.isRemote && Self.acceptsOnlyBiometrics(policy) && prompting.biometryType == .fingerprint {
            return .unavailable(Self.remoteError)
        }
        return prompting.availability(for: policy)
    }

    func currentEnrollment() throws -> EnrollmentFingerprint? {
        try prompting.currentEnrollment()
    }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        guard prompting.biometryType == .fingerprint else {
            do {
                return try await prompting.authenticate(for: policy, prompt: prompt)
            } catch let error as VaultError where error.code == .biometryNotAvailable && Self.acceptsOnlyBiometrics(policy) {
                throw Self.readerUnanswered(error)
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

    func authenticateOwner(prompt: PromptText) async throws {
        try await prompting.authenticateOwner(prompt: prompt)
    }

    /// Whether the fingerprints are locked out now (no prompt; fprintd is asked, without claiming the reader).
    var isLockedOut: Bool {
        guard case .unavailable(let error) = platform.availability(for: .biometryAny) else { return false }
        return error.code == .biometryLockout
    }

    /// Lockout: the login password clears it, then the operation's own prompt runs once more.
    private func recover(policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        guard session.ownerAuthenticationUsable else {
            throw VaultError(.biometryLockout, underlying: .message(
                "fingerprints are locked out after \(FailedAttemptCounter.limit) failed attempts; \(Self.lockoutWayOut)"))
        }
        Console.notice("fingerprints are locked out after \(FailedAttemptCounter.limit) failed attempts: enter your login password to unlock them")
        try await prompting.authenticateOwner(prompt: PromptText(reason: "Unlock the fingerprint reader after failed attempts"))
        return try await prompting.authenticate(for: policy, prompt: prompt)
    }

    /// No reader can be asked (fprintd down or unreachable, no reader, biometrics not chosen): the item is
    /// kept, not invalidated, and opens again once a finger can be asked; the platform's reason first.
    static func readerUnanswered(_ error: VaultError) -> VaultError {
        let wayOut = "; the item is kept: it opens with a finger once the fingerprint reader can be asked (`biometrics-vault doctor` shows what is missing)"
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
