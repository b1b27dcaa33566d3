#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension VaultServiceCLITests {
    /// Where the service reads its limits when it starts (Docs/VaultService.md).
    static let serviceLimits = "/etc/biometrics-vault/service.conf"

    /// Replaces the administrator's file with its own lines and `lines`, for one test: returns what to
    /// write back after it.
    func setServiceLimits(_ lines: String) throws -> String {
        let kept = (try? String(contentsOfFile: Self.serviceLimits, encoding: .utf8)) ?? ""
        try FileManager.default.createDirectory(atPath: "/etc/biometrics-vault", withIntermediateDirectories: true)
        try (kept + lines).write(toFile: Self.serviceLimits, atomically: true, encoding: .utf8)
        return kept
    }

    /// Puts back the administrator's file `setServiceLimits` replaced.
    func restoreServiceLimits(_ kept: String) {
        if kept.isEmpty {
            try? FileManager.default.removeItem(atPath: Self.serviceLimits)
        } else {
            try? kept.write(toFile: Self.serviceLimits, atomically: true, encoding: .utf8)
        }
    }

    /// The items of `user` in the service's state directory (read as root).
    func itemCount(of user: String) async throws -> Int {
        let uid = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/id"), ["-u", user]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let store = "/var/lib/biometrics-vault/users/\(uid)"
        let services = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
        return services.reduce(0) { count, service in
            count + ((try? FileManager.default.contentsOfDirectory(atPath: "\(store)/\(service)")) ?? []).filter { $0.hasSuffix(".bvi") }.count
        }
    }

    /// With `max-items` set by the administrator, one user fills their place: the next new item is
    /// refused whole (`storeFull`, exit 15, nothing stored), a replacement of a kept one is still written, and another
    /// user stores as before.
    @Test(.needs(CLINeeds.testUser))
    func aUserAtTheItemLimitIsRefusedAWholeNewItemWhileAnotherUserStores() async throws {
        try await prepareHomes()
        for key in ["limit-1", "limit-2", "limit-over"] { _ = try await run(["reset", key], as: user) }
        _ = try await run(["reset", "other-at-limit"], as: other)
        let before = try await itemCount(of: user)
        let kept = try setServiceLimits("# a test's limit\nmax-items = \(before + 2)\n")
        try await killService()  // the limits are read when the service starts
        try await withCleanup { () async throws -> Void in
            for key in ["limit-1", "limit-2"] {
                let stored = try await run(["store", key], as: user, stdin: #"{"token":"kept"}"#)
                #expect(stored.status == 0, "\(stored.stderr)")
            }
            let over = try await run(["store", "limit-over"], as: user, stdin: #"{"token":"one too many"}"#)
            #expect(over.status == 15 && over.stderr.contains("[storeFull]"), "\(over.stdout)\(over.stderr)")
            #expect(over.stderr.contains("at their limit (\(before + 2) items"), "\(over.stderr)")
            #expect(try await run(["show", "limit-over"], as: user).status == 2)
            #expect(try await itemCount(of: user) == before + 2)
            let replaced = try await run(["update", "limit-1"], as: user, stdin: #"{"token":"replaced"}"#)
            #expect(replaced.status == 0, "\(replaced.stderr)")
            #expect(try await run(["show", "limit-1", "--field", "token"], as: user).stdout.contains("replaced"))
            let theirs = try await run(["store", "other-at-limit"], as: other, stdin: #"{"token":"theirs"}"#)
            #expect(theirs.status == 0, "\(theirs.stderr)")
        } cleanup: {
            restoreServiceLimits(kept)
            try? await killService()
            for key in ["limit-1", "limit-2", "limit-over"] { _ = try? await run(["reset", key], as: user) }
            _ = try? await run(["reset", "other-at-limit"], as: other)
        }
    }

    /// With `max-prompts-per-minute` set by the administrator, a user's checks past it in a minute are
    /// refused at once (`interactionNotAllowed`, exit 9), with no finger asked; a read inside an unlock
    /// window is no check and is served.
    @Test(.needs(CLINeeds.fingerprint, CLINeeds.testUser))
    func checksPastThePromptRateAreRefusedAtOnceWithoutTheReader() async throws {
        try await prepareHomes()
        try await enrollOnly(user, finger: Self.finger)
        var kept = ""
        try await withCleanup { () async throws -> Void in
            try await storeProtected("prompt-rate", secret: "at-a-persons-pace")
            kept = try setServiceLimits("max-prompts-per-minute = 2\n")
            try await killService()  // the limits are read when the service starts
            // One terminal session, whose window the first read opens.
            let terminal = try await session(["-c", Self.evalLoop], as: user, executable: "/bin/sh")
            let show = "\(CLISandbox.binary.path) show prompt-rate --field token"
            terminal.type("\(show) --unlock-window 5m; echo first-$?.\n")
            try await answerFinger()
            #expect(try await terminal.waitFor("first-0."), "\(terminal.text)")
            terminal.type("\(show); echo inside-$?.\n")
            #expect(try await terminal.waitFor("inside-0."), "a read inside the window was refused: \(terminal.text)")
            terminal.type("\(CLISandbox.binary.path) lock; \(show); echo second-$?.\n")
            try await answerFinger()
            #expect(try await terminal.waitFor("second-0."), "\(terminal.text)")
            terminal.type("\(show); echo third-$?.\n")
            #expect(try await terminal.waitFor("third-9."), "\(terminal.text)")
            #expect(try await !reader.fingerNeeded(), "the refused check claimed the reader")
            #expect(terminal.text.contains("2 checks in the last minute") && terminal.text.contains("[interactionNotAllowed]"), "\(terminal.text)")
            #expect(terminal.text.components(separatedBy: "at-a-persons-pace").count - 1 == 3, "\(terminal.text)")
            terminal.type("exit 0\n")
            _ = try await terminal.finish()
        } cleanup: {
            restoreServiceLimits(kept)
            try? await killService()
            _ = try? await run(["reset", "prompt-rate"], as: user)
            _ = try? await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/fprintd-delete"), [user])
        }
    }
}
#endif
