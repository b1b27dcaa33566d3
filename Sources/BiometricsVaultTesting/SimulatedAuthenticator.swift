import BiometricsVaultCore

/// The simulated device's authenticator: answers prompts from the device's script.
public struct SimulatedAuthenticator: Authenticator {
    let device: LockedValue<SimulatedDevice.State>

    public var biometryType: BiometryType { device.withLock { $0.biometryType } }

    public func availability(for policy: ProtectionPolicy) -> AuthenticatorAvailability {
        device.withLock { state in
            switch Self.route(policy, state) {
            case .biometric, .owner: .available
            case .unavailable(let error): .unavailable(error)
            }
        }
    }

    /// As LocalAuthentication answers: `nil` only when nothing is enrolled; when biometrics cannot be
    /// asked (no sensor, no passcode, locked out) the set is unknown and this throws why.
    public func currentEnrollment() throws -> EnrollmentFingerprint? {
        try device.withLock { state -> EnrollmentFingerprint? in
            switch Self.route(.biometryCurrentSet, state) {
            case .biometric, .owner: return state.enrollment
            case .unavailable(let reason) where reason.code == .biometryNotEnrolled: return nil
            case .unavailable(let reason): throw reason
            }
        }
    }

    public func authenticate(for policy: ProtectionPolicy, prompt: PromptText) async throws -> Authorization {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        try Self.requireReason(prompt)
        return try device.withLock { state -> Authorization in
            switch Self.route(policy, state) {
            case .unavailable(let error):
                throw error
            case .owner:
                try Self.ownerPrompt(&state, prompt)
                return Authorization(policy: policy, enrollment: nil)
            case .biometric:
                state.biometricPromptCount += 1
                state.shownPrompts.append(prompt)
                let result = state.prompts.isEmpty ? .match : state.prompts.removeFirst()
                switch result {
                case .match:
                    state.failures.record(.match)
                    return Authorization(policy: policy, enrollment: state.enrollment)
                case .noMatch:
                    state.failures.record(.noMatch)
                    throw VaultError(.authenticationFailed, underlying: .message("simulated no match"))
                case .userCancel:
                    state.failures.record(.cancelled)
                    throw VaultError(.userCancel)
                case .systemCancel:
                    state.failures.record(.cancelled)
                    throw VaultError(.systemCancel)
                case .userFallback:
                    state.failures.record(.cancelled)
                    throw VaultError(.userFallback)
                }
            }
        }
    }

    public func authenticateOwner(prompt: PromptText) async throws {
        if Task.isCancelled { throw VaultError(.systemCancel, underlying: .message("task cancelled")) }
        try Self.requireReason(prompt)
        try device.withLock { state in
            guard state.passcodeSet else { throw VaultError(.passcodeNotSet) }
            try Self.ownerPrompt(&state, prompt)
        }
    }

    // MARK: Private

    /// As LocalAuthenticator: no prompt without a reason (Apple's `evaluatePolicy` crashes on an empty one).
    private static func requireReason(_ prompt: PromptText) throws(VaultError) {
        guard prompt.hasReason else { throw VaultError(.invalidPrompt, underlying: .message("the prompt has no reason")) }
    }

    private enum Route {
        case biometric
        case owner
        case unavailable(VaultError)
    }

    /// Apple's rules: biometrics need a passcode; `.userPresence` falls back to the passcode when
    /// biometrics cannot be used; `.devicePasscode` never uses biometrics.
    private static func route(_ policy: ProtectionPolicy, _ state: SimulatedDevice.State) -> Route {
        guard state.passcodeSet else { return .unavailable(VaultError(.passcodeNotSet)) }
        let biometricProblem: VaultError? =
            if state.biometryType == .none { VaultError(.biometryNotAvailable) }
            else if !state.enrolled { VaultError(.biometryNotEnrolled) }
            else if state.failures.isLockedOut { VaultError(.biometryLockout) }
            else { nil }
        switch policy {
        case .biometryCurrentSet, .biometryAny:
            return biometricProblem.map(Route.unavailable) ?? .biometric
        case .userPresence:
            return biometricProblem == nil ? .biometric : .owner
        case .devicePasscode:
            return .owner
        }
    }

    private static func ownerPrompt(_ state: inout SimulatedDevice.State, _ prompt: PromptText) throws {
        state.ownerPromptCount += 1
        state.shownPrompts.append(prompt)
        let result = state.ownerPrompts.isEmpty ? .match : state.ownerPrompts.removeFirst()
        switch result {
        case .match: state.failures.record(.ownerAuthenticated)
        case .noMatch: throw VaultError(.authenticationFailed, underlying: .message("simulated wrong passcode"))
        // The passcode sheet has no fallback button; dismissing it is a cancel.
        case .userCancel, .userFallback: throw VaultError(.userCancel)
        case .systemCancel: throw VaultError(.systemCancel)
        }
    }
}
