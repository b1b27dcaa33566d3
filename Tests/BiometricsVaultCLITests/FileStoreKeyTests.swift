import BiometricsVault
import Foundation
import BiometricsVaultTestSupport
import Testing

/// The library's key-source API (``FileStoreKey``), in process on a store in a temporary directory:
/// the current secret is asked before anything changes, and a failed change keeps the old protection.
/// (The TPM cases run against swtpm in BiometricsVaultTPMTests, through the CLI.)
@Suite(.onTestThreads) struct FileStoreKeyTests {
    static let passphrase = SecretBytes(utf8: "correct horse")

    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bv-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        try body(url.appendingPathComponent("store", isDirectory: true))
    }

    @Test("no store yet: the change creates one; then it changes the recorded protection, asking the current secret first")
    func createThenChange() throws {
        try Self.withDirectory { directory in
            #expect(try FileStoreKey.protection(directory: directory) == nil)
            let creation = try FileStoreKey.Change(directory: directory) { kind in
                Issue.record("asked for \(kind) with no store")
                return Self.passphrase
            }
            #expect(creation.current == nil)
            #expect(try creation.apply(.passphrase(Self.passphrase)) == .created)
            #expect(try FileStoreKey.protection(directory: directory) == .passphrase)

            let asked = LockedValue<[StoreSecretKind]>([])
            let change = try FileStoreKey.Change(directory: directory) { kind in
                asked.withLock { $0.append(kind) }
                return Self.passphrase
            }
            #expect(asked.withLock { $0 } == [.passphrase], "asked when the change is opened, before the new secret")
            #expect(change.current == .passphrase)
            #expect(try change.apply(.keyFile) == .changed)
            #expect(try FileStoreKey.protection(directory: directory) == .keyFile)
        }
    }

    @Test("a wrong current passphrase changes nothing", arguments: [FileStoreKey.NewProtection.keyFile, .passphrase(SecretBytes(utf8: "new horse"))])
    func wrongCurrentSecretChangesNothing(_ target: FileStoreKey.NewProtection) throws {
        try Self.withDirectory { directory in
            try FileStoreKey.Change(directory: directory) { _ in Self.passphrase }.apply(.passphrase(Self.passphrase))
            let keyFile = directory.appendingPathComponent("master.key")
            let before = try Data(contentsOf: keyFile)
            let change = try FileStoreKey.Change(directory: directory) { _ in SecretBytes(utf8: "wrong horse") }
            #expect(throws: VaultError.authenticationFailed) { try change.apply(target) }
            #expect(try Data(contentsOf: keyFile) == before)
            #expect(try FileStoreKey.protection(directory: directory) == .passphrase)
        }
    }

    @Test("the names key status prints", arguments: zip(
        FileStoreKey.Protection.allCases, ["key-file", "passphrase", "tpm", "tpm+pin", "sealed"]))
    func protectionNames(_ protection: FileStoreKey.Protection, name: String) {
        #expect(protection.rawValue == name)
    }
}
