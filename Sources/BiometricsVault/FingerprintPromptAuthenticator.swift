/// Shows the caller's own "touch the fingerprint reader" prompt while a finger is awaited: fprintd
/// shows nothing itself, so on Linux the program says it (the CLI on stderr, an app in its window).
/// Passes everything else through unchanged, except that a program that only reads can skip the
/// availability probe (`probesAvailability`).
public struct FingerprintPromptAuthenticator: Authenticator {
    /// Runs while the reader waits, with the operation's reason and how long the reader waits; cancelled
    /// when the wait ends, and awaited before the authentication returns (so the prompt can clear itself).
    public typealias Prompt = @Sendable (_ reason: String, _ timeout: Duration) async -> Void

    private let wrapped: any Authenticator
    private let timeout: Duration?
    private let probesAvailability: Bool
    private let prompt: Prompt

    /// - Parameters:
    ///   - timeout: how long the reader waits (``PlatformSelection/fingerprintTimeout``); `nil` when the
    ///     wrapped authenticator has no reader: nothing is shown.
    ///   - probesAvailability: `false` for a program that only reads: the vault asks for availability only
    ///     to tell `.keychain` from `.keychainUpgradable` (and the two empty states), which a read does not
    ///     use, and the probe is several fprintd round trips (each checked with polkit). Prompts are unaffected.
    public init(wrapping wrapped: any Authenticator, timeout: Duration?, probesAvailability: Bool = true, prompt: @escaping Prompt) {
        self.wrapped = wrapped
        self.timeout = timeout
        self.probesAvailability = probesAvailability
        self.prompt = prompt
    }

    public var biometryType: BiometryType { wrapped.biometryType }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        guard probesAvailability else {
            return .unavailable(VaultError(.interactionNotAllowed, underlying: .message("not probed by a read-only command")))
        }
        return wrapped.availability(for: policy)
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        try wrapped.currentEnrollment()
    }

    public func authenticate(for policy: ProtectionPolicy, prompt text: PromptText) async throws -> Authorization {
        guard let timeout, usesFinger(policy) else {
            return try await wrapped.authenticate(for: policy, prompt: text)
        }
        let prompt = self.prompt
        let shown = Task { await prompt(text.reason, timeout) }
        let result: Result<Authorization, any Error>
        do {
            result = .success(try await wrapped.authenticate(for: policy, prompt: text))
        } catch {
            result = .failure(error)
        }
        shown.cancel()
        await shown.value
        return try result.get()
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        try await wrapped.authenticateOwner(prompt: prompt)
    }

    /// Whether `policy` will be answered by a finger (not by the password fallback).
    private func usesFinger(_ policy: ProtectionPolicy) -> Bool {
        guard wrapped.biometryType == .fingerprint else { return false }
        return switch policy {
        case .devicePasscode: false
        case .userPresence: wrapped.availability(for: .biometryAny).isAvailable
        case .biometryAny, .biometryCurrentSet: true
        }
    }
}
