import ArgumentParser
import BiometricsVault

/// The process exit codes of `biometrics-vault`. Stable: scripts switch on them. The ONE table that maps
/// library errors to them is ``ExitStatus/forCode``; `--help` and Docs/CLI.md list ``allCases``.
enum ExitStatus: Int32, CaseIterable, Sendable {
    case ok = 0
    case failure = 1
    case notFound = 2
    case cancelled = 3
    case authenticationFailed = 4
    case lockedOut = 5
    case storeUnavailable = 6
    case storeLocked = 7
    case badInput = 8
    case biometricsUnavailable = 9
    case wrongState = 10
    case corruptedItem = 11
    case invalidated = 12
    case permissionDenied = 13
    case outputFailed = 14
    case storeFull = 15
    case usage = 64
    case commandNotExecutable = 126
    case commandNotFound = 127

    /// One line for `--help`.
    var summary: String {
        switch self {
        case .ok: "success"
        case .failure: "unexpected failure"
        case .notFound: "not found (nothing under KEY, no such --field or import source)"
        case .cancelled: "cancelled (Ctrl-C, timeout, reader busy); not a failed attempt"
        case .authenticationFailed: "fingerprint or password did not match"
        case .lockedOut: "locked out after 5 failed fingerprint attempts"
        case .storeUnavailable: "store unavailable (no session bus, no daemon, I/O error)"
        case .storeLocked: "the store is locked (e.g. a locked login keyring)"
        case .badInput: "bad input (invalid JSON, empty stdin, invalid key or argument, too large)"
        case .biometricsUnavailable: "no usable biometrics / owner authentication for this"
        case .wrongState: "not in this state (see `status`)"
        case .corruptedItem: "stored item corrupted (left in place: `reset` would delete the only copy)"
        case .invalidated: "invalidated: the enrolled fingers changed"
        case .permissionDenied: "not permitted (e.g. `setup` without root)"
        case .outputFailed: "stdout not writable (closed, full, broken pipe); the command completed"
        case .storeFull: "store full (disk, quota or a vault service limit); nothing written"
        case .usage: "invalid command line"
        case .commandNotExecutable: "exec: COMMAND cannot be run"
        case .commandNotFound: "exec: COMMAND not found"
        }
    }

    /// The exit status for every library error code.
    static let forCode: [VaultError.Code: ExitStatus] = [
        .biometryNotAvailable: .biometricsUnavailable,
        .biometryNotEnrolled: .biometricsUnavailable,
        .passcodeNotSet: .biometricsUnavailable,
        .interactionNotAllowed: .biometricsUnavailable,
        .biometryLockout: .lockedOut,
        .biometryChanged: .invalidated,
        .userCancel: .cancelled,
        .userFallback: .cancelled,
        .systemCancel: .cancelled,
        .authenticationFailed: .authenticationFailed,
        .storeUnavailable: .storeUnavailable,
        .storeLocked: .storeLocked,
        .storeFull: .storeFull,
        .corruptedItem: .corruptedItem,
        .invalidKey: .badInput,
        .credentialsTooLarge: .badInput,
        .encodingFailed: .badInput,
        .invalidPrompt: .badInput,
        .invalidVault: .wrongState,
        .vaultLocked: .wrongState,
        .itemNotFound: .notFound,
    ]

    init(_ error: VaultError) {
        self = Self.forCode[error.code] ?? .failure
    }

    /// The "EXIT CODES" section of `--help`.
    static var helpText: String {
        "EXIT CODES:\n"
            + allCases.map { status in
                let code = String(status.rawValue)
                return "  " + code + String(repeating: " ", count: max(1, 4 - code.count)) + status.summary
            }.joined(separator: "\n")
    }
}

/// A failure the CLI itself detects (bad stdin, nothing stored, ...). Its message never holds secrets.
struct CLIFailure: Error, Sendable {
    var status: ExitStatus
    var code: String
    var message: String

    static func badInput(_ message: String) -> CLIFailure { CLIFailure(status: .badInput, code: "badInput", message: message) }
    static func notFound(_ message: String) -> CLIFailure { CLIFailure(status: .notFound, code: "notFound", message: message) }
    static func wrongState(_ message: String) -> CLIFailure {
        CLIFailure(status: .wrongState, code: "wrongState", message: message)
    }
}
