#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension VaultServiceCLITests {
    /// A same-user program floods the audit with refused reads of a 2 MiB key: each is refused, each
    /// entry stays small, and the user's earlier entries are still there for `audit`.
    @Test(.needs(CLINeeds.testUser))
    func refusedReadsOfAHugeKeyWriteBoundedEntriesAndKeepEarlierOnes() async throws {
        try await prepareHomes()
        let stored = try await run(["store", "before-the-flood"], as: user, stdin: #"{"token":"t"}"#)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try await run(["show", "before-the-flood"], as: user).status == 0)
        let flood = try await run(["-c", """
            from jeepney import DBusAddress, HeaderFields, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            vault = DBusAddress("/io/github/biometricsvault/Vault1", bus_name="io.github.biometricsvault.Vault1",
                                interface="io.github.biometricsvault.Vault1")
            bus = open_dbus_connection(bus="SYSTEM")
            for _ in range(3):
                reply = bus.send_and_get_reply(new_method_call(vault, "Read", "ssay", ("biometrics-vault", "k" * (2 << 20), b"")))
                print(reply.header.fields.get(HeaderFields.error_name), flush=True)
            """], as: user, executable: "/usr/bin/python3")
        #expect(flood.stdout.components(separatedBy: "Error.invalidKey").count - 1 == 3, "\(flood.stdout)\(flood.stderr)")

        let uid = try await sandbox.run(executable: URL(fileURLWithPath: "/usr/bin/id"), ["-u", user]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let log = try String(contentsOfFile: "/var/lib/biometrics-vault/audit/\(uid).log", encoding: .utf8)
        let longest = log.split(separator: "\n").map(\.utf8.count).max() ?? 0
        #expect(longest < 2048, "an audit entry of \(longest) bytes")
        #expect(log.contains(#""itemBytes":"#), "the cut key's length is not noted")
        let audit = try await run(["audit", "--json"], as: user)
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(audit.stdout.contains("biometrics-vault/before-the-flood"), "\(audit.stdout.prefix(2000))")
        _ = try await run(["reset", "before-the-flood"], as: user)
    }
}
#endif
