import BiometricsVaultCore

/// What the next simulated prompt answers.
public enum SimulatedPromptResult: Hashable, Sendable {
    /// The face / finger matches (for an owner prompt: the right passcode).
    case match
    /// It does not match (for an owner prompt: a wrong passcode). Counts toward the 5-attempt lockout.
    case noMatch
    /// The user tapped Cancel. Never counts as a failed attempt.
    case userCancel
    /// The system cancelled the prompt (app went to background, another prompt). Never counts.
    case systemCancel
    /// The user tapped the fallback button ("Enter Password"): `userFallback`, so the app shows its own
    /// sign-in. Never counts. For an owner (passcode) prompt, which has no fallback button: `userCancel`.
    case userFallback
}

/// A deterministic device for unit tests: a keychain with Apple's semantics and a scripted authenticator.
///
/// ```swift
/// let device = SimulatedDevice(biometryType: .faceID)   // enrolled, passcode set, keychain empty
/// device.enqueue(.noMatch)
/// let config = VaultConfiguration(store: device.store, authenticator: device.authenticator)
/// ```
/// - An empty prompt queue answers `.match`; ``promptCount`` counts the prompts shown (biometric and owner).
/// - Five `.noMatch` in a row lock biometrics out (`biometryLockout`, shown without a prompt) until an owner
///   authentication (`reauthenticateOwner()`) succeeds. Cancels never count.
/// - ``changeEnrollment()`` invalidates `.biometryCurrentSet` items; `.biometryAny` items survive.
/// - ``setPasscode(_:)`` with `false` destroys every protected item (they are "when passcode set, this
///   device only"), as iOS does; `retrieveVault` then reports `invalidation == .passcodeRemoved`, as the
///   Keychain store does.
public final class SimulatedDevice: Sendable {
    struct State: Sendable {
        var biometryType: BiometryType
        var enrolled: Bool
        var enrollmentGeneration = 1
        var passcodeSet: Bool
        var prompts: [SimulatedPromptResult] = []
        var ownerPrompts: [SimulatedPromptResult] = []
        var biometricPromptCount = 0
        var ownerPromptCount = 0
        var failures = FailedAttemptCounter()
        var items: [SecretItemID: SimulatedKeychain.Entry] = [:]
        /// Protected items destroyed by removing the passcode, until their key is written or deleted.
        var destroyedWithPasscode: Set<SecretItemID> = []
        var keychainLocked = false
        var shownPrompts: [PromptText] = []
        /// The app's `UserDefaults` install markers (service, key); a reinstall clears them.
        var installMarkers: Set<[String]> = []
    }

    let state: LockedValue<State>

    /// The device's keychain (a `SecretStore`).
    public let store: SimulatedKeychain
    /// The device's authenticator.
    public let authenticator: SimulatedAuthenticator
    /// A manual clock for `.session(timeout:)` tests: pass `clock: device.clock.vaultClock`.
    public let clock = ManualClock()

    /// - Parameters:
    ///   - biometryType: `.none` makes a device without biometric hardware.
    ///   - enrolled: whether biometrics are enrolled (ignored for `.none`).
    ///   - passcodeSet: whether a device passcode is set.
    public init(biometryType: BiometryType = .faceID, enrolled: Bool = true, passcodeSet: Bool = true) {
        let state = LockedValue(
            State(biometryType: biometryType, enrolled: enrolled && biometryType != .none, passcodeSet: passcodeSet))
        self.state = state
        self.store = SimulatedKeychain(device: state)
        self.authenticator = SimulatedAuthenticator(device: state)
    }

    // MARK: Scripting

    /// Queues the answer of the next biometric prompt.
    public func enqueue(_ results: SimulatedPromptResult...) {
        state.withLock { $0.prompts += results }
    }

    /// Queues the answer of the next owner (passcode) prompt.
    public func enqueueOwner(_ results: SimulatedPromptResult...) {
        state.withLock { $0.ownerPrompts += results }
    }

    /// Enrolls a different set of biometrics (e.g. a new finger). Invalidates `.biometryCurrentSet` items.
    public func changeEnrollment() {
        state.withLock { state in
            state.enrollmentGeneration += 1
            state.enrolled = state.biometryType != .none
        }
    }

    /// Removes all enrolled biometrics. `.biometryCurrentSet` items are invalidated.
    public func removeEnrollment() {
        state.withLock { state in
            state.enrolled = false
            state.enrollmentGeneration += 1
        }
    }

    /// Sets or removes the device passcode. Removing it destroys every protected item.
    public func setPasscode(_ isSet: Bool) {
        state.withLock { state in
            state.passcodeSet = isSet
            guard !isSet else { return }
            let destroyed = state.items.filter { $0.value.header.protection != .none }.keys
            state.destroyedWithPasscode.formUnion(destroyed)
            for id in destroyed { state.items[id] = nil }
        }
    }

    /// Simulates a keychain that cannot be read now (e.g. before first unlock): reads fail with `storeLocked`.
    public func setKeychainLocked(_ locked: Bool) {
        state.withLock { $0.keychainLocked = locked }
    }

    /// Deletes and reinstalls the app: its defaults (and so ``installMarker``'s marks) are gone, its
    /// keychain items survive, as on iOS. Use a new `VaultConfiguration` afterwards, as the new process would.
    public func reinstallApp() {
        state.withLock { $0.installMarkers = [] }
    }

    /// The app's install marker, kept in the simulated defaults (``reinstallApp()`` clears it): set it as
    /// `configuration.installMarker` to opt in to the reset after a reinstall.
    public var installMarker: InstallMarker {
        InstallMarker(
            contains: { [state] service, key in state.withLock { $0.installMarkers.contains([service, key]) } },
            insert: { [state] service, key in _ = state.withLock { $0.installMarkers.insert([service, key]) } })
    }

    /// Damages the stored bytes of an item (for `corruptedItem` tests). Returns whether an item was there.
    @discardableResult
    public func corruptItem(key: String, service: String) -> Bool {
        state.withLock { state in
            guard let id = try? SecretItemID(service: service, key: key), var entry = state.items[id] else {
                return false
            }
            var bytes = entry.envelope.copyBytes()
            bytes[bytes.count / 2] ^= 0xFF
            entry.envelope = SecretBytes(bytes)
            state.items[id] = entry
            return true
        }
    }

    // MARK: Observing

    /// Prompts shown so far (biometric and owner).
    public var promptCount: Int { state.withLock { $0.biometricPromptCount + $0.ownerPromptCount } }
    /// Biometric prompts shown so far.
    public var biometricPromptCount: Int { state.withLock { $0.biometricPromptCount } }
    /// Owner (passcode) prompts shown so far.
    public var ownerPromptCount: Int { state.withLock { $0.ownerPromptCount } }
    /// The texts of every prompt shown, in order.
    public var shownPrompts: [PromptText] { state.withLock { $0.shownPrompts } }
    /// Consecutive failed biometric attempts.
    public var consecutiveFailures: Int { state.withLock { $0.failures.consecutiveFailures } }
    /// Whether biometrics are locked out.
    public var isLockedOut: Bool { state.withLock { $0.failures.isLockedOut } }
    /// The number of items in the keychain.
    public var itemCount: Int { state.withLock { $0.items.count } }
    /// The protection of a stored item, `nil` if there is none. Never prompts.
    public func protection(key: String, service: String) -> ItemProtection? {
        state.withLock { state in
            (try? SecretItemID(service: service, key: key)).flatMap { state.items[$0]?.header.protection }
        }
    }
}

extension SimulatedDevice.State {
    var enrollment: EnrollmentFingerprint? {
        enrolled ? EnrollmentFingerprint(hashing: Array("simulated-\(biometryType.rawValue)-\(enrollmentGeneration)".utf8)) : nil
    }
}
