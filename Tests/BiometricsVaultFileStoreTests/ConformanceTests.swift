import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTesting
import Foundation
import BiometricsVaultTestSupport
import Testing

@Suite("EncryptedFileStore conformance", .onTestThreads)
struct ConformanceTests {
    @Test("SecretStore contract, key-file store", arguments: SecretStoreConformance.Check.allCases)
    func keyFileStore(_ check: SecretStoreConformance.Check) async throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        try await SecretStoreConformance(store: store).run(check)
    }

    // One passphrase store for every check: scrypt runs once per store, not once per check.
    @Test("SecretStore contract, passphrase store")
    func passphraseStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(SecretBytes(utf8: "correct horse")))
        try await SecretStoreConformance(store: store).runAll()
    }

    @Test("a second store value over the same directory sees the same items")
    func reopen() throws {
        let directory = try TemporaryDirectory()
        let id = try SecretItemID(service: "svc", key: "alice")
        let protected = ItemHeader(protection: .protected(.biometryCurrentSet), enrollment: EnrollmentFingerprint("abc123"))
        try EncryptedFileStore(directory: directory.storeURL).write(item("{\"p\":1}", protected), for: id, authorization: nil)
        let reopened = try EncryptedFileStore(directory: directory.storeURL)
        let read = try #require(try reopened.read(id, authorization: nil))
        #expect(read.header == protected)
        #expect(text(of: read) == "{\"p\":1}")
        #expect(try reopened.keys(service: "svc") == ["alice"])
    }

    @Test("a passphrase store reopens with the same passphrase")
    func passphraseReopen() throws {
        let directory = try TemporaryDirectory()
        let id = try SecretItemID(service: "svc", key: "alice")
        let passphrase = SecretBytes(utf8: "correct horse")
        try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(passphrase)).write(item("x"), for: id, authorization: nil)
        let reopened = try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(passphrase))
        #expect(text(of: try reopened.read(id, authorization: nil)) == "x")
    }

    @Test("hostile keys stay inside the store and do not collide")
    func hostileKeys() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        // (SecretItemID already refuses "/", "\\", NUL, "." and "..", and keys not in NFC such as "e\u{301}";
        // these are the legal but awkward ones. "q\u{301}" has no precomposed form, so it is NFC.)
        let keys = [
            "...", "..∕..∕etc∕passwd", String(repeating: "k", count: 512), "q\u{301}", "\u{e9}", "Alice", "alice",
            " ", "-rf", "~", "$HOME", "%2e%2e", "master.key", ".lock", "🔑",
        ]
        for (index, key) in keys.enumerated() {
            try store.write(item("v\(index)"), for: SecretItemID(service: "svc", key: key), authorization: nil)
        }
        for (index, key) in keys.enumerated() {
            #expect(text(of: try store.read(SecretItemID(service: "svc", key: key), authorization: nil)) == "v\(index)")
        }
        #expect(try store.keys(service: "svc") == keys.sorted())
        // Every file is a hex name inside the store; no key text appears in any path.
        for path in try allFiles(under: directory.url).map(\.path) {
            #expect(path.hasPrefix(directory.storeURL.path + "/"))
            let name = URL(fileURLWithPath: path).lastPathComponent
            #expect(name == "master.key" || name == ".lock" || name == ".check" || name.hasSuffix(".bvi"), "unexpected file \(name)")
        }
    }

    @Test("invalid keys are rejected and nothing is touched", arguments: ["", "a/b", "a\u{0}b", ".."])
    func invalidKeys(_ key: String) throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let good = try SecretItemID(service: "svc", key: "good")
        try store.write(item("kept"), for: good, authorization: nil)
        let before = try allFiles(under: directory.url).map(\.bytes)
        // SecretItemID itself refuses these keys.
        expectVaultError(.invalidKey) { try SecretItemID(service: "svc", key: key) }
        expectVaultError(.invalidKey) { try store.keys(service: key) }
        #expect(try allFiles(under: directory.url).map(\.bytes) == before)
        #expect(text(of: try store.read(good, authorization: nil)) == "kept")
    }

    @Test("payloads over the limit are refused and the old item stays")
    func tooLarge() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let id = try SecretItemID(service: "svc", key: "k")
        try store.write(item("old"), for: id, authorization: nil)
        let big = StoredItem(header: plainHeader, payload: SecretBytes([UInt8](repeating: 1, count: VaultLimits.maximumCredentialsSize + 1)))
        expectVaultError(.credentialsTooLarge) { try store.write(big, for: id, authorization: nil) }
        #expect(text(of: try store.read(id, authorization: nil)) == "old")
    }

    @Test("a store that does not exist yet reads as empty and writes nothing until the first write")
    func lazyCreation() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let id = try SecretItemID(service: "svc", key: "k")
        #expect(try store.read(id, authorization: nil) == nil)
        #expect(try store.keys(service: "svc") == [])
        try store.delete(id)
        #expect(!FileManager.default.fileExists(atPath: directory.storeURL.path))
        try store.write(item("v"), for: id, authorization: nil)
        #expect(FileManager.default.fileExists(atPath: directory.storeURL.appendingPathComponent("master.key").path))
    }

    @Test("update is a read-modify-write; returning nil deletes")
    func update() throws {
        let directory = try TemporaryDirectory()
        let store = try EncryptedFileStore(directory: directory.storeURL)
        let id = try SecretItemID(service: "svc", key: "counter")
        for _ in 0..<3 {
            try store.update(id, authorization: nil) { current in
                let value = Int(text(of: current) ?? "0")! + 1
                return item("\(value)")
            }
        }
        #expect(text(of: try store.read(id, authorization: nil)) == "3")
        try store.update(id, authorization: nil) { _ in nil }
        #expect(try store.read(id, authorization: nil) == nil)
    }

    @Test("the default directory follows XDG_DATA_HOME")
    func defaultDirectory() throws {
        let url = EncryptedFileStore.defaultDirectory()
        #expect(url.lastPathComponent == "biometrics-vault")
        if let dataHome = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            #expect(url.deletingLastPathComponent().standardizedFileURL.path == URL(fileURLWithPath: dataHome).standardizedFileURL.path)
        } else {
            #expect(url.path.hasSuffix("/.local/share/biometrics-vault"))
        }
        #expect(try EncryptedFileStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("unused-bv-\(UUID())")).name == "file")
    }
}
