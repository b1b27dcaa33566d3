#if (canImport(Security) && canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))) || APPLE_SDK_STUBS
import BiometricsVaultCore
import Foundation

/// Face ID, Touch ID, Optic ID and the device passcode through LocalAuthentication, as an ``Authenticator``.
///
/// Each prompt uses a fresh `LAContext`. After a successful evaluation the context is handed, inside the
/// returned ``Authorization``, to ``KeychainStore``, which passes it as `kSecUseAuthenticationContext`: the
/// Keychain opens the protected item with it, so one unlock shows one prompt, and the vault's session
/// policy (``AuthenticationReuse``) decides how long it is reused. ``Authorization/invalidate()`` (from
/// `lock()`, a session ending, or a replaced session) calls `LAContext.invalidate()`; so does cancelling the
/// Task that awaits a prompt, which dismisses the prompt.
///
/// Lockout is counted by the OS (five failed biometric attempts); ``authenticateOwner(prompt:)`` evaluates
/// `.deviceOwnerAuthentication`, which asks for the passcode while biometry is locked out and clears the
/// lockout.
///
/// - Important: apps that use biometric policies must have `NSFaceIDUsageDescription` in their Info.plist.
public struct LocalAuthenticator: Authenticator {
    let makeContext: @Sendable () -> any LocalAuthenticationContext

    /// The device's LocalAuthentication.
    public init() {
        self.init(makeContext: { SystemLocalAuthenticationContext() })
    }

    /// For tests: contexts from a factory.
    package init(makeContext: @escaping @Sendable () -> any LocalAuthenticationContext) {
        self.makeContext = makeContext
    }

    public var biometryType: BiometryType {
        let probe = probe(.biometrics)
        return LocalAuthenticationMapping.biometryType(rawValue: probe.biometryTypeRawValue)
    }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        let probe = probe(LocalAuthenticationMapping.availabilityPolicy(for: policy))
        return probe.canEvaluate ? .available : .unavailable(LocalAuthenticationMapping.error(code: probe.errorCode))
    }

    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        try LocalAuthenticationMapping.enrollment(from: probe(.biometrics))
    }

    /// The enrolled set from every source the OS offers, for comparing bindings stored from another one.
    package func currentEnrollmentReadings() -> EnrollmentReadings {
        LocalAuthenticationMapping.enrollmentReadings(from: probe(.biometrics))
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        let context = try await evaluate(
            LocalAuthenticationMapping.evaluation(for: policy), prompt: prompt,
            availability: LocalAuthenticationMapping.availabilityPolicy(for: policy))
        // The set that matched, read from the evaluated context itself.
        let enrollment = policy.requiresBiometry ? (try? LocalAuthenticationMapping.enrollment(from: context.probe(.biometrics))) ?? nil : nil
        context.forbidInteraction()
        return Authorization(policy: policy, enrollment: enrollment, context: context)
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        let context = try await evaluate(.policy(.deviceOwner), prompt: prompt, availability: .deviceOwner)
        context.invalidate()
    }

    // MARK: Private

    /// A probe on a throwaway context.
    private func probe(_ policy: LocalAuthenticationPolicy) -> LocalAuthenticationProbe {
        let context = makeContext()
        defer { context.invalidate() }
        return context.probe(policy)
    }

    /// One prompt on a fresh context; returns the evaluated context, or invalidates it and throws.
    private func evaluate(
        _ evaluation: LocalAuthenticationEvaluation, prompt: PromptText, availability: LocalAuthenticationPolicy
    ) async throws(VaultError) -> any LocalAuthenticationContext {
        if Task.isCancelled { throw Self.cancelled }
        // evaluatePolicy raises an Objective-C exception on an empty localizedReason: refuse before any
        // LAContext exists.
        guard prompt.hasReason else { throw Self.noReason }
        let context = makeContext()
        // canEvaluatePolicy first: it is what fills in biometryType and the domain state, and it reports
        // "not enrolled", "locked out" and "no passcode" without showing anything.
        let probe = context.probe(availability)
        guard probe.canEvaluate else {
            context.invalidate()
            throw LocalAuthenticationMapping.error(code: probe.errorCode)
        }
        let texts = LocalAuthenticationMapping.promptTexts(prompt, for: evaluation)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LocalAuthenticationOutcome, Never>) in
                context.evaluate(evaluation, prompt: texts) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            context.invalidate()  // dismisses the prompt; the reply then reports the cancellation
        }
        if Task.isCancelled {
            context.invalidate()
            throw Self.cancelled
        }
        switch outcome {
        case .success:
            return context
        case .failure(let code):
            context.invalidate()
            throw LocalAuthenticationMapping.error(code: code)
        }
    }

    private static let cancelled = VaultError(.systemCancel, underlying: .message("task cancelled"))
    private static let noReason = VaultError(.invalidPrompt, underlying: .message("the prompt has no reason"))
}
#endif
