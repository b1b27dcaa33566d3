/// Counts consecutive failed biometric attempts; five in a row lock biometrics out until the owner
/// authenticates by passcode / password. Pure: the caller persists it (Linux) or keeps it in memory
/// (the simulated device).
package struct FailedAttemptCounter: Hashable, Sendable, Codable {
    /// Consecutive non-matches that lock biometrics out.
    package static let limit = 5

    package private(set) var consecutiveFailures: Int

    package init(consecutiveFailures: Int = 0) {
        self.consecutiveFailures = max(0, consecutiveFailures)
    }

    package var isLockedOut: Bool { consecutiveFailures >= Self.limit }

    package enum Outcome: Hashable, Sendable {
        /// A biometric match.
        case match
        /// A biometric non-match.
        case noMatch
        /// The prompt was cancelled (by the user, the system or the task). Never a failed attempt.
        case cancelled
        /// The owner authenticated by passcode / password.
        case ownerAuthenticated
    }

    package mutating func record(_ outcome: Outcome) {
        switch outcome {
        case .match, .ownerAuthenticated: consecutiveFailures = 0
        // Compared before adding: a count read from a persisted file may be as large as Int.max, and
        // `+ 1` on it would trap (found by review of the lockout file parser, see HardeningRegressionTests).
        case .noMatch: consecutiveFailures = consecutiveFailures >= Self.limit ? Self.limit : consecutiveFailures + 1
        case .cancelled: break
        }
    }
}
