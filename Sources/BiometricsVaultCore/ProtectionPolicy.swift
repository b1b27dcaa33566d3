/// Who may read a protected item.
public enum ProtectionPolicy: String, Hashable, Sendable, CaseIterable, Codable {
    /// Biometrics only, bound to the biometrics enrolled when the item was stored. Adding or removing a
    /// finger (or re-enrolling a face) invalidates the item, as Apple's `.biometryCurrentSet` does.
    case biometryCurrentSet
    /// Biometrics only; survives enrollment changes.
    case biometryAny
    /// Biometrics, or the device passcode / login password when biometrics are not available.
    case userPresence
    /// The device passcode / login password only.
    case devicePasscode

    /// Whether the policy can be satisfied by biometrics alone (and so needs them to be present).
    public var requiresBiometry: Bool {
        switch self {
        case .biometryCurrentSet, .biometryAny: true
        case .userPresence, .devicePasscode: false
        }
    }

    /// Whether items under this policy are tied to the enrolled biometrics.
    public var bindsEnrollment: Bool {
        switch self {
        case .biometryCurrentSet: true
        case .biometryAny, .userPresence, .devicePasscode: false
        }
    }
}

/// How long one successful authentication may be reused without a new prompt.
public enum AuthenticationReuse: Hashable, Sendable {
    /// Every `unlock()` and every `update(credentials:)` of a protected vault prompts.
    case never
    /// Within `timeout` of the last successful prompt for the same item, `unlock()` and
    /// `update(credentials:)` run without a new prompt. `lock()` ends the session early.
    case session(timeout: Duration)
}

/// The texts shown in an authentication prompt. Used as given: there are no host-bundle lookups.
public struct PromptText: Hashable, Sendable {
    /// Why the app asks (Apple: `localizedReason`; CLI: the line above "Touch the fingerprint reader").
    public var reason: String
    /// The cancel button title, where the platform shows one.
    public var cancel: String?
    /// The fallback button title (e.g. "Use Password"), where the platform shows one.
    public var fallback: String?

    public init(reason: String, cancel: String? = nil, fallback: String? = nil) {
        self.reason = reason
        self.cancel = cancel
        self.fallback = fallback
    }

    public static let `default` = PromptText(reason: "Unlock your saved credentials")

    /// Whether ``reason`` has something to show: not empty, not only whitespace. Apple's `evaluatePolicy`
    /// raises an Objective-C exception (a crash) on an empty reason, so authenticators refuse a prompt
    /// without one with ``VaultError/Code/invalidPrompt`` before asking the platform.
    public var hasReason: Bool { reason.contains { !$0.isWhitespace } }
}

/// The kind of biometric sensor an authenticator drives.
public enum BiometryType: String, Hashable, Sendable, CaseIterable, Codable {
    case none
    case touchID
    case faceID
    case opticID
    /// A fingerprint reader on Linux (fprintd).
    case fingerprint
}

/// Why credentials stored earlier are gone.
public enum VaultInvalidation: Hashable, Sendable {
    /// The enrolled biometrics changed; a `.biometryCurrentSet` item can no longer be unlocked.
    case biometryChanged
    /// The stored item could not be read (only from the non-throwing `retrieveVault`, which cannot throw;
    /// `retrieveVaultOrThrow` throws this error instead). The item is left in place.
    case unreadable(VaultError)
    /// The app was reinstalled: the item outlived the app in the store, and the configuration's
    /// ``VaultConfiguration/installMarker`` (opt-in) had it deleted on the first retrieve of this install.
    case appReinstalled
    /// The device passcode was removed, and the OS destroyed the protected item with it (Apple deletes
    /// every "when passcode set, this device only" item). Reported by stores that can tell
    /// (``SecretStore/vanishedItemReason(_:)``); set a passcode and sign in again.
    case passcodeRemoved
}

/// Limits that apply to every backend.
public enum VaultLimits {
    /// The largest accepted credentials payload, as encoded JSON: 64 KiB. The Apple Keychain and the
    /// Secret Service both handle this size comfortably; larger values are not credentials.
    public static let maximumCredentialsSize = 64 * 1024
    /// The longest accepted key or service, in UTF-8 bytes.
    public static let maximumKeyLength = 512
}
