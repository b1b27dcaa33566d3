import BiometricsVaultCore
import BiometricsVaultFileStore
import Foundation
import BiometricsVaultTestSupport
import Testing

/// Damaged, moved and foreign files: each read reports the documented error, never a wrong value, never
/// nothing, and the store leaves the bytes where they are.
@Suite("EncryptedFileStore tampering", .onTestThreads)
struct TamperTests {
    let directory: TemporaryDirectory
    let store: EncryptedFileStore
    let alice: SecretItemID
    let bob: SecretItemID

    init() throws {
        directory = try TemporaryDirectory()
        store = try EncryptedFileStore(directory: directory.storeURL)
        alice = try SecretItemID(service: "svc", key: "alice")
        bob = try SecretItemID(service: "svc", key: "bob")
    }

    /// Writes `id` and returns the path of the file that appeared for it.
    func writeAndLocate(_ id: SecretItemID, _ value: String, header: ItemHeader = plainHeader, in store: EncryptedFileStore? = nil) throws -> String {
        let before = Set(try itemFiles(under: directory.url))
        try (store ?? self.store).write(item(value, header), for: id, authorization: nil)
        let added = Set(try itemFiles(under: directory.url)).subtracting(before)
        try #require(added.count == 1)
        return added.first!
    }

    /// Reads `id` expecting `corruptedItem`, and checks the file is still there with the given bytes.
    func expectCorrupted(_ id: SecretItemID, file: String, bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        expectVaultError(.corruptedItem, sourceLocation: sourceLocation) { try store.read(id, authorization: nil) }
        // A fresh store value (nothing cached) reports the same.
        expectVaultError(.corruptedItem, sourceLocation: sourceLocation) {
            try EncryptedFileStore(directory: directory.storeURL).read(id, authorization: nil)
        }
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == bytes, "the store changed or removed the damaged file", sourceLocation: sourceLocation)
    }

    enum Region: String, CaseIterable, CustomStringConvertible {
        case magic, version, protection, nonce, ciphertext, tag
        var description: String { rawValue }
        func offset(fileSize: Int) -> Int {
            switch self {
            case .magic: 0
            case .version: 4
            case .protection: 5
            case .nonce: 6 + 5
            case .ciphertext: 6 + 12 + 3
            case .tag: fileSize - 1
            }
        }
    }

    @Test("a flipped byte anywhere is corruptedItem", arguments: Region.allCases)
    func flipByte(_ region: Region) throws {
        let file = try writeAndLocate(alice, "{\"password\":\"hunter2\"}", header: ItemHeader(protection: .protected(.biometryAny)))
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[region.offset(fileSize: bytes.count)] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try expectCorrupted(alice, file: file, bytes: bytes)
        expectVaultError(.corruptedItem) { try store.keys(service: "svc") }
    }

    @Test("a protected item edited to read as unprotected is corruptedItem")
    func protectionDowngrade() throws {
        let file = try writeAndLocate(alice, "secret", header: ItemHeader(protection: .protected(.devicePasscode)))
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes[5] == 4)
        bytes[5] = 0
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try expectCorrupted(alice, file: file, bytes: bytes)
    }

    @Test("a truncated file is corruptedItem", arguments: [0, 1, 10, 33, -1])
    func truncate(_ length: Int) throws {
        let file = try writeAndLocate(alice, "{\"password\":\"hunter2\"}")
        let full = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let bytes = Array(full.prefix(length >= 0 ? length : full.count + length))
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try expectCorrupted(alice, file: file, bytes: bytes)
    }

    @Test("two items' files swapped: both corruptedItem, neither decrypts into the other's slot")
    func swapFiles() throws {
        let aliceFile = try writeAndLocate(alice, "alice-secret")
        let bobFile = try writeAndLocate(bob, "bob-secret")
        let aliceBytes = Array(try Data(contentsOf: URL(fileURLWithPath: aliceFile)))
        let bobBytes = Array(try Data(contentsOf: URL(fileURLWithPath: bobFile)))
        try Data(bobBytes).write(to: URL(fileURLWithPath: aliceFile))
        try Data(aliceBytes).write(to: URL(fileURLWithPath: bobFile))
        try expectCorrupted(alice, file: aliceFile, bytes: bobBytes)
        try expectCorrupted(bob, file: bobFile, bytes: aliceBytes)
    }

    @Test("one item's file copied over another's is corruptedItem")
    func renamedFile() throws {
        let aliceFile = try writeAndLocate(alice, "alice-secret")
        let bobFile = try writeAndLocate(bob, "bob-secret")
        try FileManager.default.removeItem(atPath: bobFile)
        try FileManager.default.moveItem(atPath: aliceFile, toPath: bobFile)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: bobFile)))
        try expectCorrupted(bob, file: bobFile, bytes: bytes)
        #expect(try store.read(alice, authorization: nil) == nil)
    }

    @Test("the same key moved to another service is corruptedItem")
    func otherService() throws {
        let other = try SecretItemID(service: "svc2", key: "alice")
        let sourceFile = try writeAndLocate(alice, "svc-secret")
        let targetFile = try writeAndLocate(other, "svc2-secret")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: sourceFile)))
        try Data(bytes).write(to: URL(fileURLWithPath: targetFile))
        try expectCorrupted(other, file: targetFile, bytes: bytes)
    }

    @Test("a file from another store (same service and key) is corruptedItem")
    func fileFromAnotherStore() throws {
        let otherDirectory = try TemporaryDirectory()
        let otherStore = try EncryptedFileStore(directory: otherDirectory.storeURL)
        try otherStore.write(item("other-store-secret"), for: alice, authorization: nil)
        let foreign = Array(try Data(contentsOf: URL(fileURLWithPath: try onlyItemFile(under: otherDirectory.url))))
        let file = try writeAndLocate(alice, "own-secret")
        try Data(foreign).write(to: URL(fileURLWithPath: file))
        try expectCorrupted(alice, file: file, bytes: foreign)
    }

    @Test("arbitrary foreign content is corruptedItem", arguments: ["hello", "BVFI", String(repeating: "A", count: 200)])
    func foreignContent(_ content: String) throws {
        let file = try writeAndLocate(alice, "own-secret")
        try Data(content.utf8).write(to: URL(fileURLWithPath: file))
        try expectCorrupted(alice, file: file, bytes: Array(content.utf8))
    }

    @Test("an item path that is a directory or a symlink is corruptedItem, not followed")
    func notARegularFile() throws {
        let file = try writeAndLocate(alice, "own-secret")
        let target = directory.url.appendingPathComponent("elsewhere").path
        try Data("BVFI".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: target)
        expectVaultError(.corruptedItem) { try store.read(alice, authorization: nil) }
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        expectVaultError(.corruptedItem) { try store.read(alice, authorization: nil) }
        #expect(FileManager.default.fileExists(atPath: file))
    }

    @Test("a damaged key file is corruptedItem; a missing one with items present is corruptedItem")
    func keyFile() throws {
        _ = try writeAndLocate(alice, "own-secret")
        let keyFile = directory.storeURL.appendingPathComponent("master.key")
        var bytes = Array(try Data(contentsOf: keyFile))
        bytes[10] ^= 0xFF
        try Data(bytes).write(to: keyFile)
        expectVaultError(.corruptedItem) { try EncryptedFileStore(directory: directory.storeURL) }
        try FileManager.default.removeItem(at: keyFile)
        let reopened = try EncryptedFileStore(directory: directory.storeURL)
        expectVaultError(.corruptedItem) { try reopened.read(alice, authorization: nil) }
        // Writing does not start a second key beside items it cannot read.
        expectVaultError(.corruptedItem) { try reopened.write(item("new"), for: bob, authorization: nil) }
        #expect(!FileManager.default.fileExists(atPath: keyFile.path))
    }

    @Test("wrong passphrase is authenticationFailed; the wrong kind of key is refused")
    func passphrases() throws {
        let passphraseDirectory = try TemporaryDirectory()
        let right = SecretBytes(utf8: "correct horse battery staple")
        let store = try EncryptedFileStore(directory: passphraseDirectory.storeURL, keySource: .passphrase(right))
        try store.write(item("secret"), for: alice, authorization: nil)
        let before = try allFiles(under: passphraseDirectory.url).map(\.bytes)

        expectVaultError(.authenticationFailed) {
            try EncryptedFileStore(directory: passphraseDirectory.storeURL, keySource: .passphrase(SecretBytes(utf8: "correct horse battery stapler")))
        }
        expectVaultError(.authenticationFailed) {
            try EncryptedFileStore(directory: passphraseDirectory.storeURL, keySource: .passphrase(SecretBytes(utf8: "")))
        }
        expectVaultError(.storeLocked) { try EncryptedFileStore(directory: passphraseDirectory.storeURL) }
        // A key-file store does not open with a passphrase either.
        _ = try writeAndLocate(alice, "key-file-secret")
        expectVaultError(.authenticationFailed) {
            try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(right))
        }
        #expect(try allFiles(under: passphraseDirectory.url).map(\.bytes) == before)
        #expect(text(of: try EncryptedFileStore(directory: passphraseDirectory.storeURL, keySource: .passphrase(right)).read(alice, authorization: nil)) == "secret")
    }
}
