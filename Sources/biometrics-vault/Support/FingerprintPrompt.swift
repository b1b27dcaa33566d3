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

/// Shows "Touch the fingerprint reader…" on stderr, with the time left, while the wrapped authenticator
/// waits for a finger. Passes everything else through unchanged, except that a command that only reads
/// (`show`) skips the availability probe.
struct FingerprintPromptAuthenticator: Authenticator {
    let wrapped: any Authenticator
    /// How long fprintd waits; `nil` when the wrapped authenticator has no reader.
    let timeout: Duration?
    /// `false` for commands that only read: the vault asks for availability only to tell `.keychain`
    /// from `.keychainUpgradable` (and the two empty states), which a read does not use, and the probe
    /// is several fprintd round trips (each checked with polkit) on every run. Prompts are unaffected.
    let probesAvailability: Bool

    init(wrapping wrapped: any Authenticator, timeout: Duration?, probesAvailability: Bool) {
        self.wrapped = wrapped
        self.timeout = timeout
        self.probesAvailability = probesAvailability
    }

    var biometryType: BiometryType { wrapped.biometryType }

    func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        guard probesAvailability else {
            return .unavailable(VaultError(.interactionNotAllowed, underlying: .message("not probed by a read-only command")))
        }
        return wrapped.availability(for: policy)
    }

    func currentEnrollment() throws -> EnrollmentFingerprint? {
        try wrapped.currentEnrollment()
    }

    func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        guard let timeout, usesFinger(policy) else {
            return try await wrapped.authenticate(for: policy, prompt: prompt)
        }
        let line = FingerprintPromptLine(reason: prompt.reason, timeout: timeout)
        let countdown = Task { await line.run() }
        let result: Result<Authorization, any Error>
        do {
            result = .success(try await wrapped.authenticate(for: policy, prompt: prompt))
        } catch {
            result = .failure(error)
        }
        countdown.cancel()
        await countdown.value
        line.finish()
        return try result.get()
    }

    func authenticateOwner(prompt: PromptText) async throws {
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

/// The one-line prompt: redrawn in place each second on a terminal, printed once otherwise.
struct FingerprintPromptLine: Sendable {
    let reason: String
    let timeout: Duration
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(reason: String, timeout: Duration) {
        self.reason = reason
        self.timeout = timeout
    }

    func run() async {
        let start = ContinuousClock.now
        guard isTerminal else {
            Console.err("\(reason): Touch the fingerprint reader… (\(seconds(timeout)) s left, Ctrl-C to cancel)")
            return
        }
        while !Task.isCancelled {
            let left = max(.zero, timeout - (ContinuousClock.now - start))
            write("\r\u{1B}[K\(reason): Touch the fingerprint reader… (\(seconds(left)) s left, Ctrl-C to cancel)")
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Clears the line on a terminal.
    func finish() {
        if isTerminal { write("\r\u{1B}[K") }
    }

    private func seconds(_ duration: Duration) -> Int64 {
        duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0)
    }

    private func write(_ text: String) {
        Console.errRaw(text)
    }
}
