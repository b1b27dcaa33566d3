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

    /// The prompt runs while a finger is awaited: from the start, or, for an authenticator that may answer
    /// without a check (``CheckAnnouncingAuthenticator``: the vault service inside a window), from when
    /// it says a finger check began, so a call answered without one shows nothing however long it takes.
    public func authenticate(for policy: ProtectionPolicy, prompt text: PromptText) async throws -> Authorization {
        guard let timeout, usesFinger(policy) else {
            return try await wrapped.authenticate(for: policy, prompt: text)
        }
        let prompt = self.prompt
        let reason = text.reason
        let shown = LockedValue<(task: Task<Void, Never>?, ended: Bool)>((nil, false))
        let show: @Sendable () -> Void = {
            shown.withLock { state in
                guard state.task == nil, !state.ended else { return }
                state.task = Task { await prompt(reason, timeout) }
            }
        }
        let result: Result<Authorization, any Error>
        do {
            if let announcing = wrapped as? any CheckAnnouncingAuthenticator {
                result = .success(try await announcing.authenticate(for: policy, prompt: text) { check in
                    if check == .finger { show() }
                })
            } else {
                show()
                result = .success(try await wrapped.authenticate(for: policy, prompt: text))
            }
        } catch {
            result = .failure(error)
        }
        let task = shown.withLock { state in
            state.ended = true
            return state.task
        }
        task?.cancel()
        await task?.value
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
