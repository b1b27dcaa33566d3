import BiometricsVaultCore
import Foundation
import Testing

/// Regression tests for defects found by the hardening work (fuzzing, review of parsers of untrusted input).
@Suite("Hardening regressions")
struct HardeningRegressionTests {
    /// The Linux fingerprint lockout count is read from a file any process of the user can write
    /// (`LockoutStore`); a count of Int.max made the next failed attempt overflow and trap.
    @Test(arguments: [Int.max, Int.max - 1, FailedAttemptCounter.limit + 1, 1_000_000])
    func aHugePersistedFailureCountStaysLockedOutWithoutTrapping(count: Int) throws {
        var counter = FailedAttemptCounter(consecutiveFailures: count)
        #expect(counter.isLockedOut)
        counter.record(.noMatch)
        #expect(counter.isLockedOut)
        #expect(counter.consecutiveFailures <= max(count, FailedAttemptCounter.limit))
        counter.record(.ownerAuthenticated)
        #expect(counter.consecutiveFailures == 0)
        #expect(!counter.isLockedOut)
    }

    /// The same count arriving through Codable (which bypasses the clamping initializer).
    @Test func aHugeDecodedFailureCountDoesNotTrap() throws {
        var counter = try JSONDecoder().decode(
            FailedAttemptCounter.self, from: Data(#"{"consecutiveFailures":9223372036854775807}"#.utf8))
        counter.record(.noMatch)
        #expect(counter.isLockedOut)
    }

    /// A negative count (a damaged or edited file) is no credit of extra attempts.
    @Test func aNegativePersistedCountIsZero() {
        var counter = FailedAttemptCounter(consecutiveFailures: -1_000)
        #expect(counter.consecutiveFailures == 0)
        for _ in 0..<FailedAttemptCounter.limit { counter.record(.noMatch) }
        #expect(counter.isLockedOut)
    }
}
