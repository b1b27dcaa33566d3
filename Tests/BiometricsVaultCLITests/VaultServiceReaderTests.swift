#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

extension VaultServiceCLITests {
    /// Two users read protected items at once: the second waits for the reader while the first's check
    /// holds it (fprintd lets one claim hold the device), then gets its own turn; neither fails with
    /// "the reader is in use".
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func twoUsersChecksTakeTurnsAtTheReader() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        try await enrollOnly(other, finger: Self.otherFinger)
        try await withCleanup { () async throws -> Void in
            try await storeProtected("turns", secret: "first-users-turn")
            try await storeProtected("turns", secret: "second-users-turn", as: other, finger: Self.otherFinger)
            let first = try await session(["show", "turns", "--field", "token"], as: user)
            try await reader.waitForFingerNeeded()
            let second = try await session(["show", "turns", "--field", "token"], as: other)
            #expect(try await second.waitFor("Touch the fingerprint reader"), "\(second.text)")
            try await Task.sleep(for: .milliseconds(500))  // the second's Authenticate reaches the service
            try await reader.scan(Self.finger)
            #expect(try await first.finish() == 0, "\(first.text)")
            #expect(first.text.contains("first-users-turn"), "\(first.text)")
            // The reader is the second user's now.
            try await reader.waitForFingerNeeded()
            try await reader.scan(Self.otherFinger)
            #expect(try await second.finish() == 0, "\(second.text)")
            #expect(second.text.contains("second-users-turn"), "\(second.text)")
            _ = try await run(["reset", "turns"], as: user)
            _ = try await run(["reset", "turns"], as: other)
        } cleanup: {
            for name in [user, other] { _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [name]) }
        }
    }
}
#endif
