#if (canImport(Security) && canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))) || APPLE_SDK_STUBS
// Platform-neutral model of LocalAuthentication and every mapping from it to BiometricsVault's types.
// `SystemLocalAuthenticationContext.swift` is the only file that touches LAContext.
import BiometricsVaultCore
import Foundation

/// The `LAPolicy` values we evaluate.
package enum LocalAuthenticationPolicy: Hashable, Sendable {
    /// `.deviceOwnerAuthenticationWithBiometrics`.
    case biometrics
    /// `.deviceOwnerAuthentication`: biometrics, or the passcode when biometrics are unavailable or locked out.
    case deviceOwner
}

/// What one prompt evaluates.
package enum LocalAuthenticationEvaluation: Hashable, Sendable {
    /// `evaluatePolicy(_:localizedReason:reply:)`.
    case policy(LocalAuthenticationPolicy)
    /// `evaluateAccessControl(_:operation: .useItem, localizedReason:reply:)` on the access control a
    /// protected item has, for policies no `LAPolicy` expresses (passcode only).
    case accessControl(KeychainAccessControlFlags)
}

/// The texts an `LAContext` shows, straight from ``PromptText`` (no bundle lookups).
package struct LocalAuthenticationPromptTexts: Hashable, Sendable {
    package var reason: String
    /// `localizedCancelTitle`; `nil` keeps the system's.
    package var cancelTitle: String?
    /// `localizedFallbackTitle`; `nil` keeps the system's, `""` hides the button.
    package var fallbackTitle: String?

    package init(reason: String, cancelTitle: String?, fallbackTitle: String?) {
        self.reason = reason
        self.cancelTitle = cancelTitle
        self.fallbackTitle = fallbackTitle
    }
}

/// What `canEvaluatePolicy` answered, and what it made readable on the context.
package struct LocalAuthenticationProbe: Hashable, Sendable {
    package var canEvaluate: Bool
    /// The `LAError` code when `canEvaluate` is false.
    package var errorCode: Int?
    /// `LABiometryType.rawValue`.
    package var biometryTypeRawValue: Int
    /// `domainState.biometry.stateHash` (iOS 18 / macOS 15 / visionOS 2) and `evaluatedPolicyDomainState`.
    package var enrollment: EnrollmentReadings

    package init(
        canEvaluate: Bool, errorCode: Int? = nil, biometryTypeRawValue: Int = 0, enrollment: EnrollmentReadings = .none
    ) {
        self.canEvaluate = canEvaluate
        self.errorCode = errorCode
        self.biometryTypeRawValue = biometryTypeRawValue
        self.enrollment = enrollment
    }
}

/// How one evaluation ended.
package enum LocalAuthenticationOutcome: Hashable, Sendable {
    case success
    /// With the `LAError` code, when the error was one.
    case failure(code: Int?)
}

/// One `LAContext`, seen through the calls the authenticator makes. Also the ``AuthorizationContext`` of
/// the ``Authorization`` it produces, and the `kSecUseAuthenticationContext` of Keychain queries.
package protocol LocalAuthenticationContext: KeychainAuthenticationContext {
    /// `canEvaluatePolicy(_:error:)`, then `biometryType` and the domain state. Never prompts.
    func probe(_ policy: LocalAuthenticationPolicy) -> LocalAuthenticationProbe
    /// Starts one evaluation (one prompt); `reply` is called exactly once, also after `invalidate()`.
    func evaluate(
        _ evaluation: LocalAuthenticationEvaluation, prompt: LocalAuthenticationPromptTexts,
        reply: @escaping @Sendable (LocalAuthenticationOutcome) -> Void)
    /// After a successful evaluation: Keychain queries with this context fail instead of prompting again.
    func forbidInteraction()
}

/// `LAError.Code` raw values (LAError.h); the mapping below is the only place they mean something.
package enum LAErrorCode {
    package static let authenticationFailed = -1
    package static let userCancel = -2
    package static let userFallback = -3
    package static let systemCancel = -4
    package static let passcodeNotSet = -5
    package static let biometryNotAvailable = -6
    package static let biometryNotEnrolled = -7
    package static let biometryLockout = -8
    package static let appCancel = -9
    package static let invalidContext = -10
    package static let companionNotAvailable = -11
    package static let biometryNotPaired = -12
    package static let biometryDisconnected = -13
    package static let invalidDimensions = -14
    package static let notInteractive = -1004
}

/// Every LocalAuthentication-to-BiometricsVault mapping.
package enum LocalAuthenticationMapping {
    /// The code for each `LAError` code.
    package static let codes: [Int: VaultError.Code] = [
        LAErrorCode.authenticationFailed: .authenticationFailed,
        LAErrorCode.userCancel: .userCancel,
        // The fallback button ("Enter Password"): the user declined biometrics and wants the app's own
        // sign-in (or `reauthenticateOwner()`). Its own code, so the app can tell it from a cancel.
        LAErrorCode.userFallback: .userFallback,
        LAErrorCode.systemCancel: .systemCancel,
        LAErrorCode.passcodeNotSet: .passcodeNotSet,
        LAErrorCode.biometryNotAvailable: .biometryNotAvailable,
        LAErrorCode.biometryNotEnrolled: .biometryNotEnrolled,
        LAErrorCode.biometryLockout: .biometryLockout,
        // We cancelled (lock(), Task cancellation) through invalidate().
        LAErrorCode.appCancel: .systemCancel,
        LAErrorCode.invalidContext: .systemCancel,
        LAErrorCode.companionNotAvailable: .biometryNotAvailable,
        LAErrorCode.biometryNotPaired: .biometryNotAvailable,
        LAErrorCode.biometryDisconnected: .biometryNotAvailable,
        LAErrorCode.invalidDimensions: .biometryNotAvailable,
        LAErrorCode.notInteractive: .interactionNotAllowed,
    ]

    /// Maps an evaluation or `canEvaluatePolicy` error, keeping the code as `.laError`.
    package static func error(code: Int?) -> VaultError {
        guard let code else {
            return VaultError(.authenticationFailed, underlying: .message("evaluation failed without an LAError"))
        }
        return VaultError(codes[code] ?? .authenticationFailed, underlying: .laError(code))
    }

    /// The `LAPolicy` whose availability decides `policy`'s.
    package static func availabilityPolicy(for policy: ProtectionPolicy) -> LocalAuthenticationPolicy {
        policy.requiresBiometry ? .biometrics : .deviceOwner
    }

    /// What the prompt evaluates for `policy`: exactly what the item's access control will accept, so the
    /// evaluated context opens it without a second prompt.
    package static func evaluation(for policy: ProtectionPolicy) -> LocalAuthenticationEvaluation {
        switch policy {
        case .biometryCurrentSet, .biometryAny: .policy(.biometrics)
        case .userPresence: .policy(.deviceOwner)
        case .devicePasscode: .accessControl(.devicePasscode)
        }
    }

    /// The prompt texts. Biometric-only prompts hide the fallback button unless the app named it: its
    /// only effect would be to fail the prompt with `userFallback`.
    package static func promptTexts(_ prompt: PromptText, for evaluation: LocalAuthenticationEvaluation)
        -> LocalAuthenticationPromptTexts
    {
        let hidesFallback = evaluation == .policy(.biometrics)
        return LocalAuthenticationPromptTexts(
            reason: prompt.reason, cancelTitle: prompt.cancel, fallbackTitle: prompt.fallback ?? (hidesFallback ? "" : nil))
    }

    /// `LABiometryType` raw values: none 0, touchID 1, faceID 2, opticID 4 (iOS 17 / macOS 14 / visionOS).
    /// Raw values rather than cases, so no case newer than the deployment target is named.
    package static func biometryType(rawValue: Int) -> BiometryType {
        switch rawValue {
        case 1: .touchID
        case 2: .faceID
        case 4: .opticID
        default: .none
        }
    }

    /// The enrolled set from a probe of `.biometrics`:
    /// - enrolled: its binding from the newest source the OS offers (``EnrollmentBinding``);
    /// - nothing enrolled: `nil` (Apple has then invalidated every `.biometryCurrentSet` item);
    /// - anything else (lockout, no passcode, no hardware, no domain state): thrown, so that nothing is
    ///   declared invalidated on a guess.
    package static func enrollment(from probe: LocalAuthenticationProbe) throws(VaultError) -> EnrollmentFingerprint? {
        if !probe.canEvaluate {
            if probe.errorCode == LAErrorCode.biometryNotEnrolled { return nil }
            throw error(code: probe.errorCode)
        }
        guard let current = probe.enrollment.current else {
            throw VaultError(.biometryNotAvailable, underlying: .message("no biometric domain state"))
        }
        return current
    }

    /// Every reading of the enrolled set a probe of `.biometrics` made; none when it could not evaluate.
    package static func enrollmentReadings(from probe: LocalAuthenticationProbe) -> EnrollmentReadings {
        probe.canEvaluate ? probe.enrollment : .none
    }
}
#endif
