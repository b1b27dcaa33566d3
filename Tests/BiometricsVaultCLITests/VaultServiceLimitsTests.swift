#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension VaultServiceCLITests {
    /// Where the service reads its limits when it starts (Docs/VaultService.md).
    static let serviceLimits = "/etc/biometrics-vault/service.conf"

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
    /// refused whole (exit 6, nothing stored), a replacement of a kept one is still written, and another
    /// user stores as before.
    @Test(.needs(CLINeeds.testUser))
    func aUserAtTheItemLimitIsRefusedAWholeNewItemWhileAnotherUserStores() async throws {
        try await prepareHomes()
        for key in ["limit-1", "limit-2", "limit-over"] { _ = try await run(["reset", key], as: user) }
        _ = try await run(["reset", "other-at-limit"], as: other)
        let before = try await itemCount(of: user)
        try FileManager.default.createDirectory(atPath: "/etc/biometrics-vault", withIntermediateDirectories: true)
        try "# a test's limit\nmax-items = \(before + 2)\n".write(toFile: Self.serviceLimits, atomically: true, encoding: .utf8)
        try await killService()  // the limits are read when the service starts
        try await withCleanup { () async throws -> Void in
            for key in ["limit-1", "limit-2"] {
                let stored = try await run(["store", key], as: user, stdin: #"{"token":"kept"}"#)
                #expect(stored.status == 0, "\(stored.stderr)")
            }
            let over = try await run(["store", "limit-over"], as: user, stdin: #"{"token":"one too many"}"#)
            #expect(over.status == 6, "\(over.stdout)\(over.stderr)")
            #expect(over.stderr.contains("at their limit (\(before + 2) items"), "\(over.stderr)")
            #expect(try await run(["show", "limit-over"], as: user).status == 2)
            #expect(try await itemCount(of: user) == before + 2)
            let replaced = try await run(["update", "limit-1"], as: user, stdin: #"{"token":"replaced"}"#)
            #expect(replaced.status == 0, "\(replaced.stderr)")
            #expect(try await run(["show", "limit-1", "--field", "token"], as: user).stdout.contains("replaced"))
            let theirs = try await run(["store", "other-at-limit"], as: other, stdin: #"{"token":"theirs"}"#)
            #expect(theirs.status == 0, "\(theirs.stderr)")
        } cleanup: {
            try? FileManager.default.removeItem(atPath: Self.serviceLimits)
            try? await killService()
            for key in ["limit-1", "limit-2", "limit-over"] { _ = try? await run(["reset", key], as: user) }
            _ = try? await run(["reset", "other-at-limit"], as: other)
        }
    }
}
#endif
