#if (canImport(Security) && canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))) || APPLE_SDK_STUBS
// THE choke point of LocalAuthentication: the only file that creates or calls an LAContext.
import BiometricsVaultCore
import Foundation

#if canImport(Security)
import Security
#elseif APPLE_SDK_STUBS
import BiometricsVaultSecurityStubs
#endif
#if canImport(LocalAuthentication)
import LocalAuthentication
#elseif APPLE_SDK_STUBS
import BiometricsVaultLocalAuthenticationStubs
#endif

/// One `LAContext`, behind a lock.
///
/// `@unchecked Sendable`, because `LAContext` is not `Sendable`. It is safe because:
/// - `context` is private and every access to it (`probe`, starting `evaluate`, `forbidInteraction`,
///   `invalidate`, and the Keychain calls made inside `withKeychainContext`) happens while `lock` is held,
///   so no two threads ever use it at once;
/// - the reference never leaves the lock: `withKeychainContext` lends it to a non-escaping body, which
///   only puts it into the query dictionary of the SecItem call it makes before returning;
/// - the evaluation's reply closure does not capture the context, only the `@Sendable` `reply`;
/// - `evaluatePolicy`/`evaluateAccessControl` return at once (the prompt runs on LocalAuthentication's own
///   queue), so the lock is never held across a prompt and `invalidate()` can always dismiss one;
/// - `invalidated` is read and written only under the lock.
final class SystemLocalAuthenticationContext: LocalAuthenticationContext, @unchecked Sendable {
    private let lock = NSLock()
    private let context = LAContext()
    private var invalidated = false

    init() {}

    func probe(_ policy: LocalAuthenticationPolicy) -> LocalAuthenticationProbe {
        withLockedContext { context in
            var error: NSError?
            let canEvaluate = context.canEvaluatePolicy(Self.laPolicy(policy), error: &error)
            return LocalAuthenticationProbe(
                canEvaluate: canEvaluate, errorCode: error.flatMap(Self.laErrorCode(of:)),
                biometryTypeRawValue: context.biometryType.rawValue,
                enrollment: EnrollmentReadings(
                    biometryStateHash: Self.biometryStateHash(of: context),
                    policyDomainState: Self.policyDomainState(of: context)))
        }
    }

    func evaluate(
        _ evaluation: LocalAuthenticationEvaluation, prompt: LocalAuthenticationPromptTexts,
        reply: @escaping @Sendable (LocalAuthenticationOutcome) -> Void
    ) {
        let finish: @Sendable (Bool, (any Error)?) -> Void = { success, error in
            reply(success ? .success : .failure(code: error.flatMap(Self.laErrorCode(of:))))
        }
        lock.lock()
        defer { lock.unlock() }
        guard !invalidated else {
            finish(false, LAError(.appCancel))
            return
        }
        context.localizedReason = prompt.reason
        context.localizedCancelTitle = prompt.cancelTitle
        context.localizedFallbackTitle = prompt.fallbackTitle
        switch evaluation {
        case .policy(let policy):
            context.evaluatePolicy(Self.laPolicy(policy), localizedReason: prompt.reason, reply: finish)
        case .accessControl(let flags):
            do {
                let accessControl = try SystemKeychainClient.makeAccessControl(.whenPasscodeSetThisDeviceOnly, flags)
                context.evaluateAccessControl(
                    accessControl, operation: .useItem, localizedReason: prompt.reason, reply: finish)
            } catch {
                reply(.failure(code: nil))
            }
        }
    }

    func forbidInteraction() {
        withLockedContext { $0.interactionNotAllowed = true }
    }

    func invalidate() {
        lock.lock()
        defer { lock.unlock() }
        guard !invalidated else { return }
        invalidated = true
        context.invalidate()
    }

    func withKeychainContext<Result>(_ body: (AnyObject) throws -> Result) rethrows -> Result {
        try withLockedContext { try body($0) }
    }

    private func withLockedContext<Result>(_ body: (LAContext) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(context)
    }

    private static func laPolicy(_ policy: LocalAuthenticationPolicy) -> LAPolicy {
        switch policy {
        case .biometrics: .deviceOwnerAuthenticationWithBiometrics
        case .deviceOwner: .deviceOwnerAuthentication
        }
    }

    /// The `LAError` code of an error, if it is one (Apple reports NSErrors in `LAErrorDomain`).
    private static func laErrorCode(of error: any Error) -> Int? {
        if let laError = error as? LAError { return laError.code.rawValue }
        let nsError = error as NSError
        return nsError.domain == LAErrorDomain ? nsError.code : nil
    }

    /// `domainState.biometry.stateHash`, where it exists. Set by `canEvaluatePolicy`.
    private static func biometryStateHash(of context: LAContext) -> Data? {
        if #available(iOS 18.0, macOS 15.0, visionOS 2.0, *) {
            return context.domainState.biometry.stateHash
        }
        return nil
    }

    /// `evaluatedPolicyDomainState`: the only source before iOS 18 / macOS 15 / visionOS 2, deprecated
    /// there but still read, so that a binding stored from it can be checked after an OS upgrade. Set by
    /// `canEvaluatePolicy`. Outside any `#available` scope: the deprecation applies from iOS 18 only.
    private static func policyDomainState(of context: LAContext) -> Data? {
        context.evaluatedPolicyDomainState
    }
}

extension SystemKeychainClient {
    /// Where LocalAuthentication exists: probes carry a non-interactive `LAContext`; 0.30 items are bound to
    /// the enrollment LocalAuthentication reports, and stored bindings are compared with its readings.
    package static var platformDefault: SystemKeychainClient {
        SystemKeychainClient(
            makeNonInteractiveContext: {
                let context = LAContext()
                context.interactionNotAllowed = true
                return context
            },
            currentEnrollmentReadings: { LocalAuthenticator().currentEnrollmentReadings() })
    }
}
#endif
