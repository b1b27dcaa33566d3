import BiometricsVaultCore
import BiometricsVaultFileStore
import Foundation
import BiometricsVaultTestSupport
import Testing

/// `changeKeySource`: a change that fails at any step leaves the key file as it was, and the store opens
/// with its old source. (Sealing with a real TPM, and a change killed mid-way, are in BiometricsVaultTPMTests.)
@Suite("Changing the store's key source", .onTestThreads)
struct KeySourceChangeTests {
    static let passphrase = SecretBytes(utf8: "correct horse")

    /// A fault a working TPM does not produce on demand: sealing fails, or the sealed copy unseals to
    /// another key (a broken sealer). Named for what it fakes; never a stand-in for the TPM's behaviour.
    struct FaultInjectingSealer: MasterKeySealer {
        enum Fault: Sendable {
            case sealFails
            case unsealsAnotherKey
        }

        let fault: Fault
        var mechanism: UInt8 { 1 }
        var usesPIN: Bool { false }

        func seal(_ masterKey: SecretBytes) throws -> [UInt8] {
            switch fault {
            case .sealFails: throw VaultError(.storeUnavailable, underlying: .message("injected fault: sealing failed"))
            case .unsealsAnotherKey: return [UInt8](repeating: 0xA5, count: 48)
            }
        }

        func unseal(_ blob: [UInt8]) throws -> SecretBytes {
            SecretBytes([UInt8](repeating: 0x5A, count: 32))
        }
    }

    enum Failure: String, CaseIterable, Sendable {
        case wrongCurrentPassphrase
        case emptyNewPassphrase
        case sealingFails
        case sealedKeyOpensToAnotherKey

        var change: (from: EncryptedFileStore.KeySource, to: EncryptedFileStore.KeySource, code: VaultError.Code) {
            switch self {
            case .wrongCurrentPassphrase: (.passphrase(SecretBytes(utf8: "wrong horse")), .keyFile, .authenticationFailed)
            case .emptyNewPassphrase: (.passphrase(KeySourceChangeTests.passphrase), .passphrase(SecretBytes(utf8: "")), .authenticationFailed)
            case .sealingFails: (.passphrase(KeySourceChangeTests.passphrase), .sealed(FaultInjectingSealer(fault: .sealFails)), .storeUnavailable)
            case .sealedKeyOpensToAnotherKey:
                (.passphrase(KeySourceChangeTests.passphrase), .sealed(FaultInjectingSealer(fault: .unsealsAnotherKey)), .storeUnavailable)
            }
        }
    }

    @Test("a change that fails leaves the key file, and every item, as they were", arguments: Failure.allCases)
    func failedChangeChangesNothing(_ failure: Failure) throws {
        let directory = try TemporaryDirectory()
        let id = try SecretItemID(service: "svc", key: "alice")
        try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(Self.passphrase)).write(item("kept"), for: id, authorization: nil)
        let keyFile = directory.storeURL.appendingPathComponent("master.key")
        let before = try Data(contentsOf: keyFile)

        let change = failure.change
        expectVaultError(change.code) {
            try EncryptedFileStore.changeKeySource(directory: directory.storeURL, from: change.from, to: change.to)
        }

        #expect(try Data(contentsOf: keyFile) == before)
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.storeURL.path)
        #expect(!entries.contains { $0.hasPrefix(".master.key.") }, "\(entries)")
        #expect(try EncryptedFileStore.keyProtection(directory: directory.storeURL) == .passphrase)
        let reopened = try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(Self.passphrase))
        #expect(text(of: try reopened.read(id, authorization: nil)) == "kept")
    }

    @Test("key file to passphrase and back: the items stay readable and the key file records each source")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let id = try SecretItemID(service: "svc", key: "alice")
        try EncryptedFileStore(directory: directory.storeURL).write(item("kept"), for: id, authorization: nil)

        try EncryptedFileStore.changeKeySource(directory: directory.storeURL, from: .keyFile, to: .passphrase(Self.passphrase))
        #expect(try EncryptedFileStore.keyProtection(directory: directory.storeURL) == .passphrase)
        let wrapped = try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(Self.passphrase))
        #expect(text(of: try wrapped.read(id, authorization: nil)) == "kept")

        try EncryptedFileStore.changeKeySource(directory: directory.storeURL, from: .passphrase(Self.passphrase), to: .keyFile)
        #expect(try EncryptedFileStore.keyProtection(directory: directory.storeURL) == .keyFile)
        #expect(text(of: try EncryptedFileStore(directory: directory.storeURL).read(id, authorization: nil)) == "kept")
    }
}
