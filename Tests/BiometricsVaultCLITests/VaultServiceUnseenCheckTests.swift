#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Testing

extension VaultServiceCLITests {
    /// The package's default (`unseen-checks = refuse`): a fingerprint check that nothing would show (no
    /// prompter registered for the user, a caller without a terminal) is refused at once, exit
    /// `interactionNotAllowed`, with no turn at the reader, and the refusal says how to get prompts; the
    /// same read from a terminal is asked there and served. The audit records where each check was shown.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func aCheckNothingWouldShowIsRefusedAtOnce() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        var kept = ""
        try await withCleanup { () async throws -> Void in
            try await storeProtected("unseen", secret: "seen-only")
            kept = try setServiceLimits("unseen-checks = refuse\n")
            try await killService()  // the settings are read when the service starts
            let unseen = try await run(["show", "unseen", "--field", "token"], as: user)
            #expect(unseen.status == 9 && unseen.stderr.contains("[interactionNotAllowed]"), "\(unseen.stdout)\(unseen.stderr)")
            #expect(unseen.stderr.contains("biometrics-vault prompter") && !unseen.stdout.contains("seen-only"), "\(unseen.stderr)")
            #expect(try await !reader.fingerNeeded(), "the refused check claimed the reader")
            let seen = try await scanned(["show", "unseen", "--field", "token"], as: user, finger: Self.finger)
            #expect(seen.status == 0 && seen.text.contains("seen-only"), "\(seen.text)")
            let audit = try await run(["audit", "--json"], as: user)
            #expect(audit.stdout.contains("refused: interactionNotAllowed (nothing would show"), "\(audit.stdout)")
            #expect(audit.stdout.contains("finger; shown: the caller's terminal"), "\(audit.stdout)")
        } cleanup: {
            restoreServiceLimits(kept)
            try? await killService()
            _ = try? await run(["reset", "unseen"], as: user)
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }
}
#endif
