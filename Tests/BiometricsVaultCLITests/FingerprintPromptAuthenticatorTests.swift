import BiometricsVault
import BiometricsVaultCore
import BiometricsVaultTesting
import BiometricsVaultTestSupport
import Testing

/// The library's fingerprint prompt wrapper (``FingerprintPromptAuthenticator``), in process over a
/// simulated reader: which authentications show the caller's prompt, with what, and that the prompt has
/// ended before the authentication returns.
@Suite(.onTestThreads) struct FingerprintPromptAuthenticatorTests {
    /// What the prompt was called with, and whether each call had ended (cancelled and returned).
    final class Shown: Sendable {
        let calls = LockedValue<[(reason: String, timeout: Duration, ended: Bool)]>([])

        func prompt(reason: String, timeout: Duration) async {
            let index = calls.withLock { calls in
                calls.append((reason, timeout, false))
                return calls.count - 1
            }
            // Shown until the wait ends: the sleep returns early when the task is cancelled.
            try? await Task.sleep(for: .seconds(600))
            calls.withLock { $0[index].ended = true }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var biometry: BiometryType
        var timeout: Duration?
        var policy: ProtectionPolicy
        var scan: SimulatedPromptResult
        var prompts: Bool
        var testDescription: String { "\(biometry), timeout \(timeout.map { "\($0)" } ?? "none"), \(policy), \(scan)" }
    }

    @Test("the prompt runs while a finger is awaited, and only then", arguments: [
        Case(biometry: .fingerprint, timeout: .seconds(30), policy: .biometryAny, scan: .match, prompts: true),
        Case(biometry: .fingerprint, timeout: .seconds(30), policy: .biometryCurrentSet, scan: .match, prompts: true),
        // The password fallback is asked only when no finger can answer.
        Case(biometry: .fingerprint, timeout: .seconds(30), policy: .userPresence, scan: .match, prompts: true),
        Case(biometry: .fingerprint, timeout: .seconds(30), policy: .devicePasscode, scan: .match, prompts: false),
        // A failed scan: the prompt was shown, and has ended before the error is thrown.
        Case(biometry: .fingerprint, timeout: .seconds(30), policy: .biometryAny, scan: .noMatch, prompts: true),
        // No reader behind the wrapper (no timeout), or not a fingerprint reader: nothing shown.
        Case(biometry: .fingerprint, timeout: nil, policy: .biometryAny, scan: .match, prompts: false),
        Case(biometry: .faceID, timeout: .seconds(30), policy: .biometryAny, scan: .match, prompts: false),
    ])
    func prompts(_ test: Case) async throws {
        let device = SimulatedDevice(biometryType: test.biometry)
        device.enqueue(test.scan)
        let shown = Shown()
        let authenticator = FingerprintPromptAuthenticator(
            wrapping: device.authenticator, timeout: test.timeout, prompt: { await shown.prompt(reason: $0, timeout: $1) })
        let authorized: Bool
        do {
            _ = try await authenticator.authenticate(for: test.policy, prompt: PromptText(reason: "Open the item"))
            authorized = true
        } catch let error as VaultError {
            #expect(error.code == .authenticationFailed)
            authorized = false
        }
        #expect(authorized == (test.scan == .match))
        let calls = shown.calls.withLock { $0 }
        #expect(calls.count == (test.prompts ? 1 : 0))
        if let call = calls.first {
            #expect(call.reason == "Open the item" && call.timeout == test.timeout && call.ended)
        }
    }

    /// An authenticator that may answer without a check (the vault service inside a window) and says
    /// when one begins: here a simulated reader, slow to answer, announcing `announced` first.
    struct Announcing: CheckAnnouncingAuthenticator {
        let device: SimulatedDevice
        let announced: AuthenticationCheck?
        var biometryType: BiometryType { device.authenticator.biometryType }
        func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability { device.authenticator.availability(for: policy) }
        func currentEnrollment() throws -> EnrollmentFingerprint? { try device.authenticator.currentEnrollment() }
        func authenticateOwner(prompt: PromptText) async throws { try await device.authenticator.authenticateOwner(prompt: prompt) }
        func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
            try await authenticate(for: policy, prompt: prompt, checkStarted: { _ in })
        }
        func authenticate(
            for policy: ProtectionPolicy, prompt: PromptText, checkStarted: @escaping @Sendable (AuthenticationCheck) -> Void
        ) async throws -> Authorization {
            if let announced { checkStarted(announced) }
            // Longer than any grace a prompt could wait before showing.
            try await Task.sleep(for: .milliseconds(600))
            return try await device.authenticator.authenticate(for: policy, prompt: prompt)
        }
    }

    @Test("behind an authenticator that says when a check begins, the prompt runs for a finger check only, however late the answer",
          arguments: [AuthenticationCheck?.none, .finger, .password])
    func promptsOnlyForAnAnnouncedFingerCheck(_ announced: AuthenticationCheck?) async throws {
        let device = SimulatedDevice(biometryType: .fingerprint)
        device.enqueue(.match)
        let shown = Shown()
        let authenticator = FingerprintPromptAuthenticator(
            wrapping: Announcing(device: device, announced: announced), timeout: .seconds(30),
            prompt: { await shown.prompt(reason: $0, timeout: $1) })
        _ = try await authenticator.authenticate(for: .biometryAny, prompt: PromptText(reason: "Open the item"))
        let calls = shown.calls.withLock { $0 }
        #expect(calls.count == (announced == .finger ? 1 : 0))
        #expect(calls.allSatisfy { $0.ended })
    }

    @Test("a read-only program skips the availability probe; others get the reader's answer", arguments: [false, true])
    func availabilityProbe(probes: Bool) {
        let device = SimulatedDevice(biometryType: .fingerprint)
        let authenticator = FingerprintPromptAuthenticator(
            wrapping: device.authenticator, timeout: .seconds(30), probesAvailability: probes, prompt: { _, _ in })
        let availability = authenticator.availability(for: .biometryAny)
        if probes {
            #expect(availability.isAvailable)
        } else {
            guard case .unavailable(let error) = availability else {
                Issue.record("probed although the program only reads")
                return
            }
            #expect(error.code == .interactionNotAllowed)
        }
    }
}
