/// The one error type of BiometricsVault.
///
/// Every public API throws `VaultError`. Its ``code`` is stable across releases and is what apps switch
/// on; the ``underlying`` cause (an `OSStatus`, an `LAError` code, a D-Bus/GError name, an `errno`) is kept
/// for diagnostics. Two errors are equal when their codes are equal: the cause is detail, not identity.
///
/// - Important: No description of a `VaultError` ever contains secret bytes. Backends put only status
///   codes, error-domain names and short fixed messages into ``Underlying``.
public struct VaultError: Error, Equatable, Hashable, Sendable {
    /// What went wrong, as a stable code.
    public var code: Code
    /// The cause reported by the platform, if any.
    public var underlying: Underlying?

    public init(_ code: Code, underlying: Underlying? = nil) {
        self.code = code
        self.underlying = underlying
    }

    public static func == (lhs: VaultError, rhs: VaultError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension VaultError {
    /// A stable error code. New codes may be added in minor releases; existing ones never change meaning.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable, machine-readable name (for logs, JSON output and the CLI).
        public let name: String

        private init(_ name: String) { self.name = name }

        public var description: String { name }

        /// All codes, in declaration order.
        public static let all: [Code] = [
            .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout, .biometryChanged, .userCancel,
            .systemCancel, .authenticationFailed, .passcodeNotSet, .interactionNotAllowed, .storeUnavailable,
            .storeLocked, .corruptedItem, .invalidKey, .credentialsTooLarge, .invalidVault, .vaultLocked,
            .itemNotFound, .encodingFailed, .userFallback, .invalidPrompt, .storeFull,
        ]

        /// The device has no biometric hardware, or it cannot be reached (no fprintd, no reader).
        public static let biometryNotAvailable = Code("biometryNotAvailable")
        /// Biometric hardware exists but nothing is enrolled.
        public static let biometryNotEnrolled = Code("biometryNotEnrolled")
        /// Too many failed biometric attempts; ``VaultError/Code/authenticationFailed`` five times in a row.
        /// Cleared by a successful owner authentication (`reauthenticateOwner()`).
        public static let biometryLockout = Code("biometryLockout")
        /// The enrolled biometrics changed since the item was protected under `.biometryCurrentSet`;
        /// the item is invalidated.
        public static let biometryChanged = Code("biometryChanged")
        /// The user cancelled the prompt. Never counted as a failed attempt.
        public static let userCancel = Code("userCancel")
        /// The user chose the prompt's fallback button ("Enter Password", LAError `userFallback`) instead of
        /// biometrics: show the app's own sign-in (or `reauthenticateOwner()`). Never a failed attempt.
        public static let userFallback = Code("userFallback")
        /// The system (or the calling task) cancelled the prompt. Never counted as a failed attempt.
        public static let systemCancel = Code("systemCancel")
        /// The biometric scan or the password did not match.
        public static let authenticationFailed = Code("authenticationFailed")
        /// The policy needs a device passcode (or login password) and none is set.
        public static let passcodeNotSet = Code("passcodeNotSet")
        /// The operation would need a prompt, and prompting is not allowed here.
        public static let interactionNotAllowed = Code("interactionNotAllowed")
        /// The store cannot be reached (no daemon, no bus, I/O error, disk full, permission denied).
        public static let storeUnavailable = Code("storeUnavailable")
        /// The store has no room for the write: the disk or the user's disk quota is full (`ENOSPC`,
        /// `EDQUOT`), or the user's items in the vault service are at the limits its administrator set.
        /// Nothing was written; what was stored before is intact.
        public static let storeFull = Code("storeFull")
        /// The store is locked (e.g. a locked login keyring); unlock it and retry. Nothing was lost.
        public static let storeLocked = Code("storeLocked")
        /// The stored item exists but cannot be decoded or authenticated. It is never deleted silently.
        public static let corruptedItem = Code("corruptedItem")
        /// The key (or service) is empty, too long, or contains NUL, control characters or path separators.
        public static let invalidKey = Code("invalidKey")
        /// The encoded credentials exceed ``VaultLimits/maximumCredentialsSize``.
        public static let credentialsTooLarge = Code("credentialsTooLarge")
        /// The operation does not apply to the vault's current state (for example `unlock()` on `.keychain`),
        /// or the stored item changed protection under this handle.
        public static let invalidVault = Code("invalidVault")
        /// The handle was locked with `lock()`; unlock again before updating or downgrading.
        public static let vaultLocked = Code("vaultLocked")
        /// The item the handle refers to no longer exists in the store (another process reset it).
        public static let itemNotFound = Code("itemNotFound")
        /// The credentials could not be encoded to JSON (or a TPM PIN cannot be one: empty, over 32 bytes,
        /// or containing NUL).
        public static let encodingFailed = Code("encodingFailed")
        /// The configuration's ``PromptText/reason`` is empty or only whitespace (see
        /// ``PromptText/hasReason``). Raised before any prompt; nothing stored is touched.
        public static let invalidPrompt = Code("invalidPrompt")
    }

    /// The platform's own report of a failure, kept for diagnostics. Never holds secret bytes.
    public enum Underlying: Hashable, Sendable, CustomStringConvertible {
        /// An Apple `OSStatus` (Security framework).
        case osStatus(Int32)
        /// A LocalAuthentication `LAError` code.
        case laError(Int)
        /// A GLib `GError` (domain name, code, message) or a D-Bus error name in `domain`.
        case gError(domain: String, code: Int32, message: String)
        /// A D-Bus error name and message.
        case dbus(name: String, message: String)
        /// A PAM return code and its `pam_strerror` text.
        case pam(code: Int32, message: String)
        /// A POSIX `errno`.
        case errno(Int32)
        /// A POSIX `errno` from a file operation: what was done (`"open"`, `"rename"`...) to which path.
        /// Paths name store files, never secrets (the file store hashes key names).
        case file(operation: String, path: String, errno: Int32)
        /// A short fixed explanation from BiometricsVault itself.
        case message(String)
        /// Another `VaultError`'s chain is not kept; a type name and a redacted summary is.
        case other(type: String, summary: String)

        /// The `errno` of an ``errno(_:)`` or ``file(operation:path:errno:)`` cause.
        public var errnoValue: Int32? {
            switch self {
            case .errno(let number), .file(_, _, let number): number
            case .osStatus, .laError, .gError, .dbus, .pam, .message, .other: nil
            }
        }

        public var description: String {
            switch self {
            case .osStatus(let status): "OSStatus \(status)"
            case .laError(let code): "LAError \(code)"
            case .gError(let domain, let code, let message): "GError \(domain) \(code): \(message)"
            case .dbus(let name, let message): "D-Bus \(name): \(message)"
            case .pam(let code, let message): "PAM \(code): \(message)"
            case .errno(let number): "\(errnoText(number)) (errno \(number))"
            case .file(let operation, let path, let number): "cannot \(operation) \(path): \(errnoText(number)) (errno \(number))"
            case .message(let text): text
            case .other(let type, let summary): "\(type): \(summary)"
            }
        }
    }
}

extension VaultError: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String {
        if let underlying { return "VaultError.\(code.name) (\(underlying))" }
        return "VaultError.\(code.name)"
    }
    public var debugDescription: String { description }
}

// Spelled like enum cases so apps can write `#expect(throws: VaultError.biometryLockout)` and
// `catch let error as VaultError where error == .userCancel`.
extension VaultError {
    public static let biometryNotAvailable = VaultError(.biometryNotAvailable)
    public static let biometryNotEnrolled = VaultError(.biometryNotEnrolled)
    public static let biometryLockout = VaultError(.biometryLockout)
    public static let biometryChanged = VaultError(.biometryChanged)
    public static let userCancel = VaultError(.userCancel)
    public static let userFallback = VaultError(.userFallback)
    public static let systemCancel = VaultError(.systemCancel)
    public static let authenticationFailed = VaultError(.authenticationFailed)
    public static let passcodeNotSet = VaultError(.passcodeNotSet)
    public static let interactionNotAllowed = VaultError(.interactionNotAllowed)
    public static let storeUnavailable = VaultError(.storeUnavailable)
    public static let storeLocked = VaultError(.storeLocked)
    public static let storeFull = VaultError(.storeFull)
    public static let corruptedItem = VaultError(.corruptedItem)
    public static let invalidKey = VaultError(.invalidKey)
    public static let credentialsTooLarge = VaultError(.credentialsTooLarge)
    public static let invalidVault = VaultError(.invalidVault)
    public static let vaultLocked = VaultError(.vaultLocked)
    public static let itemNotFound = VaultError(.itemNotFound)
    public static let encodingFailed = VaultError(.encodingFailed)
    public static let invalidPrompt = VaultError(.invalidPrompt)

    /// Wraps an error from a backend that broke its contract by throwing something other than `VaultError`.
    /// Only the type name is kept: another error's description may carry data we must not print.
    static func wrapping(_ error: any Error, as code: Code) -> VaultError {
        if let vaultError = error as? VaultError { return vaultError }
        if error is CancellationError { return VaultError(.systemCancel, underlying: .message("task cancelled")) }
        return VaultError(code, underlying: .other(type: String(describing: type(of: error)), summary: "redacted"))
    }
}
