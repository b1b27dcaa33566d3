#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import Foundation
import Testing

/// Items are shared with `secret-tool` and python `keyring` on the same session bus.
@Suite(.onTestThreads, .needs(Daemon.session))
struct SecretServiceInteropTests {
    let json = #"{"username":"alice","token":"pässwörd ✓"}"#

    func secretToolLookup(service: String, username: String) async throws -> Shell.Output {
        try await Shell.run("secret-tool", ["lookup", "service", service, "username", username])
    }

    func keyringGet(service: String, username: String) async throws -> String? {
        // Names on stdin too: argv is visible to every user, and the script stays fixed.
        let script = """
            import sys, keyring
            service, username = sys.stdin.read().split("\\n")[:2]
            value = keyring.get_password(service, username)
            sys.stdout.write("NONE" if value is None else "VALUE:" + value)
            """
        let result = try await Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\n\(username)\n")
        guard result.status == 0 else { throw TestFailure("python keyring failed: \(result.stderr)") }
        if result.stdout == "NONE" { return nil }
        guard result.stdout.hasPrefix("VALUE:") else { throw TestFailure("unexpected python output") }
        return String(result.stdout.dropFirst("VALUE:".count))
    }

    @Test func plainItemIsReadBySecretToolAndPythonKeyring() async throws {
        let store = try Daemon.sessionStore()
        let id = try SecretItemID(service: uniqueService("interop-plain"), key: "alice@example.com")
        defer { try? store.delete(id) }
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: json)), for: id, authorization: nil)

        let lookup = try await secretToolLookup(service: id.service, username: id.key)
        #expect(lookup.status == 0)
        #expect(lookup.stdout == json)
        await #expect(try keyringGet(service: id.service, username: id.key) == json)
    }

    @Test(arguments: [ProtectionPolicy.biometryCurrentSet, .biometryAny, .userPresence, .devicePasscode])
    func protectedItemIsNotReturnedByPlainLookups(_ policy: ProtectionPolicy) async throws {
        let store = try Daemon.sessionStore()
        let id = try SecretItemID(service: uniqueService("interop-protected"), key: "bob")
        defer { try? store.delete(id) }
        let header = ItemHeader(protection: .protected(policy), enrollment: EnrollmentFingerprint("abc123"))
        try store.write(StoredItem(header: header, payload: SecretBytes(utf8: json)), for: id, authorization: nil)

        await #expect(try secretToolLookup(service: id.service, username: id.key).stdout.isEmpty)
        await #expect(try keyringGet(service: id.service, username: id.key) == nil)
        // ... while the vault still reads it, header and all.
        let item = try store.read(id, authorization: nil)
        #expect(item?.header == header)
        #expect(item?.payload == SecretBytes(utf8: json))
    }

    @Test func upgradeRemovesThePlainCopyAndDowngradeRestoresIt() async throws {
        let store = try Daemon.sessionStore()
        let id = try SecretItemID(service: uniqueService("interop-transition"), key: "carol")
        defer { try? store.delete(id) }
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: json)), for: id, authorization: nil)
        try store.write(
            StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: SecretBytes(utf8: json)),
            for: id, authorization: nil)
        await #expect(try keyringGet(service: id.service, username: id.key) == nil)
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "{}")), for: id, authorization: nil)
        await #expect(try keyringGet(service: id.service, username: id.key) == "{}")
        #expect(try store.keys(service: id.service) == ["carol"])
    }

    @Test(arguments: [false, true])
    func itemStoredBySecretToolIsImported(removeSource: Bool) async throws {
        let store = try Daemon.sessionStore()
        let service = uniqueService("import-secret-tool")
        let stored = try await Shell.run(
            "secret-tool", ["store", "--label=legacy item", "service", service, "username", "dave"], stdin: json)
        #expect(stored.status == 0)
        try await withCleanup { () async throws -> Void in
            let id = try SecretItemID(service: "\(service).vault", key: "dave")
            defer { try? store.delete(id) }

            try store.importItem(service: service, username: "dave", as: id, removeSource: removeSource)

            let item = try store.read(id, authorization: nil)
            #expect(item?.header == ItemHeader(protection: .none))
            #expect(item?.payload == SecretBytes(utf8: json))
            let source = try await secretToolLookup(service: service, username: "dave")
            #expect(source.stdout == (removeSource ? "" : json))
        } cleanup: {
            _ = try? await Shell.run("secret-tool", ["clear", "service", service, "username", "dave"])
        }
    }

    @Test func itemStoredByPythonKeyringIsImportedUnderTheSameName() async throws {
        let store = try Daemon.sessionStore()
        let service = uniqueService("import-keyring")
        let script = """
            import sys, keyring
            service, username, value = sys.stdin.read().split("\\n")[:3]
            keyring.set_password(service, username, value)
            """
        let set = try await Shell.run(try Daemon.pythonKeyring(), ["-c", script], stdin: "\(service)\nerin\n\(json)\n")
        #expect(set.status == 0, "\(set.stderr)")
        let id = try SecretItemID(service: service, key: "erin")
        try await withCleanup { () async throws -> Void in
            // A foreign item is not a vault item until it is imported.
            #expect(try store.read(id, authorization: nil) == nil)

            try store.importItem(service: service, username: "erin", as: id, removeSource: true)

            #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: json))
            await #expect(try keyringGet(service: service, username: "erin") == json)
        } cleanup: {
            try? store.delete(id)
            _ = try? await Shell.run("secret-tool", ["clear", "service", service, "username", "erin"])
        }
    }

    /// A secret the caller's converter refuses (python keyring's plain text, for the CLI's JSON): nothing
    /// is written and the source stays, even with `removeSource`. The converted payload is what is stored.
    @Test func importConvertsBeforeWritingAndARefusalTouchesNothing() async throws {
        let store = try Daemon.sessionStore()
        let service = uniqueService("import-convert")
        let put = try await Shell.run("secret-tool", ["store", "--label=legacy", "service", service, "username", "gus"], stdin: "plain text")
        #expect(put.status == 0)
        try await withCleanup { () async throws -> Void in
            let id = try SecretItemID(service: "\(service).vault", key: "gus")
            defer { try? store.delete(id) }
            struct NotJSON: Error {}

            #expect(throws: NotJSON.self) {
                try store.importItem(service: service, username: "gus", as: id, removeSource: true) { _ in throw NotJSON() }
            }
            #expect(try store.read(id, authorization: nil) == nil)
            await #expect(try secretToolLookup(service: service, username: "gus").stdout == "plain text")

            try store.importItem(service: service, username: "gus", as: id, removeSource: true) { secret in
                SecretBytes(utf8: "\"" + String(decoding: secret.copyBytes(), as: UTF8.self) + "\"")
            }
            #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: #""plain text""#))
            await #expect(try secretToolLookup(service: service, username: "gus").stdout == "")
        } cleanup: {
            _ = try? await Shell.run("secret-tool", ["clear", "service", service, "username", "gus"])
        }
    }

    @Test func importErrors() async throws {
        let store = try Daemon.sessionStore()
        let service = uniqueService("import-errors")
        let id = try SecretItemID(service: service, key: "frank")
        defer { try? store.delete(id) }
        #expect(throws: VaultError.itemNotFound) {
            try store.importItem(service: service, username: "nobody", as: id)
        }
        // The target already holds a vault item: nothing is overwritten.
        try store.write(StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "{\"keep\":1}")), for: id, authorization: nil)
        _ = try await Shell.run("secret-tool", ["store", "--label=legacy", "service", service, "username", "other"], stdin: "{}")
        try await withCleanup { () async throws -> Void in
            #expect(throws: VaultError.invalidVault) {
                try store.importItem(service: service, username: "other", as: id)
            }
            #expect(try store.read(id, authorization: nil)?.payload == SecretBytes(utf8: "{\"keep\":1}"))
        } cleanup: {
            _ = try? await Shell.run("secret-tool", ["clear", "service", service, "username", "other"])
        }
    }

    @Test func interruptedUpgradeResolvesToPlainAndTheNextWriteRemovesTheCopy() async throws {
        let store = try Daemon.sessionStore()
        let id = try SecretItemID(service: uniqueService("repair"), key: "gina")
        defer { try? store.delete(id) }
        // Simulate a crash between "create protected" and "delete plain": write the protected item
        // through a second store, then put the plain item back by hand with secret-tool-compatible
        // attributes exactly as the store writes them.
        try store.write(
            StoredItem(header: ItemHeader(protection: .protected(.biometryAny)), payload: SecretBytes(utf8: "new")),
            for: id, authorization: nil)
        let plainAgain = try await Shell.run(
            "secret-tool",
            ["store", "--label=plain copy", "xdg:schema", "io.github.biometricsvault.Plain", "service", id.service,
             "username", id.key, "bv-header", "bv1;none"],
            stdin: "old")
        #expect(plainAgain.status == 0)

        let fresh = try SecretServiceStore()
        let item = try fresh.read(id, authorization: nil)
        #expect(item?.header == ItemHeader(protection: .none))
        #expect(item?.payload == SecretBytes(utf8: "old"))
        #expect(try fresh.keys(service: id.service) == ["gina"])
        // The read stays two round trips and deletes nothing; the next write removes the stale copy.
        try fresh.write(
            StoredItem(header: ItemHeader(protection: .none), payload: SecretBytes(utf8: "newer")), for: id, if: .plain,
            authorization: nil)
        #expect(try await Shell.run("secret-tool", ["search", "bv-service", id.service, "bv-key", id.key]).stdout.isEmpty)
        #expect(try fresh.read(id, authorization: nil)?.payload == SecretBytes(utf8: "newer"))
    }
}
#endif
