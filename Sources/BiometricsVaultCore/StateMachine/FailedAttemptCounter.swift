/// Counts consecutive failed biometric attempts; five in a row lock biometrics out until the owner
/// authenticates by passcode / password. Pure: the caller persists it (Linux) or keeps it in memory
/// (the simulated device).
public struct FailedAttemptCounter: Hashable, Sendable, Codable {
    /// Consecutive non-matches that lock biometrics out.
    public static let limit = 5

    public private(set) var consecutiveFailures: Int

    public init(consecutiveFailures: Int = 0) {
        self.consecutiveFailures = max(0, consecutiveFailures)
    }

    public var isLockedOut: Bool { consecutiveFailures >= Self.limit }

    public enum Outcome: Hashable, Sendable {
        /// A biometric match.
        case match
        /// A biometric non-match.
        case noMatch
        /// The prompt was cancelled (by the user, the system or the task). Never a failed attempt.
        case cancelled
        /// The owner authenticated by passcode / password.
        case ownerAuthenticated
    }

    public mutating func record(_ outcome: Outcome) {
        switch outcome {
        case .match, .ownerAuthenticated: consecutiveFailures = 0
        // Compared before adding: a count read from a persisted file may be as large as Int.max, and
        // `+ 1` on it would trap (found by review of the lockout file parser, see HardeningRegressionTests).
        case .noMatch: consecutiveFailures = consecutiveFailures >= Self.limit ? Self.limit : consecutiveFailures + 1
        case .cancelled: break
        }
    }
}
