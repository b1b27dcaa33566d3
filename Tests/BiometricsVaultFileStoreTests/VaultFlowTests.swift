import BiometricsVaultCore
import BiometricsVaultFileStore
import BiometricsVaultTesting
import Foundation
import BiometricsVaultTestSupport
import Testing

/// The whole vault state machine over the encrypted file store, through the public factory.
@Suite("Vault flow over EncryptedFileStore", .onTestThreads)
struct VaultFlowTests {
    struct Login: Codable, Sendable, Equatable {
        var username: String
        var password: String
    }

    let directory: TemporaryDirectory
    let device = SimulatedDevice(biometryType: .faceID)

    init() throws {
        directory = try TemporaryDirectory()
    }

    func configuration() throws -> VaultConfiguration {
        VaultConfiguration(
            store: try EncryptedFileStore(directory: directory.storeURL), authenticator: device.authenticator,
            service: "com.example.files")
    }

    func retrieve(_ configuration: VaultConfiguration) throws -> Vault<Login> {
        try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration)
    }

    @Test("empty -> keychain -> update -> biometrics -> locked -> unlock -> downgrade -> reset, across reopened stores")
    func fullFlow() async throws {
        let alice = Login(username: "alice", password: "s3cret")
        let configuration = try configuration()
        guard case .emptyWithBiometrics(let empty) = try retrieve(configuration) else {
            Issue.record("a fresh store is not emptyWithBiometrics")
            return
        }
        let keychain = try empty.storeToKeychain(credentials: alice)
        #expect(keychain.credentials == alice)

        // A second process would open its own store value: do the same here.
        guard case .keychainUpgradable(let stored) = try retrieve(try self.configuration()) else {
            Issue.record("stored credentials not found as keychainUpgradable")
            return
        }
        #expect(stored.credentials == alice)
        let updated = try stored.update(credentials: Login(username: "alice", password: "n3w"))

        let biometrics = try await updated.upgrade()
        #expect(biometrics.credentials.password == "n3w")
        guard case .locked(let locked) = try retrieve(try self.configuration()) else {
            Issue.record("protected credentials not found as locked")
            return
        }
        let unlocked = try await locked.unlock()
        #expect(unlocked.credentials == Login(username: "alice", password: "n3w"))

        let downgraded = try unlocked.downgrade()
        #expect(try retrieve(try self.configuration()).kind == .keychain)
        let reset = try downgraded.reset()
        #expect(reset.kind == .empty)
        #expect(try retrieve(try self.configuration()).kind == .empty)
        #expect(try itemFiles(under: directory.url).isEmpty)
    }

    @Test("a corrupted item is reported as corruptedItem, not as an empty vault, and stays on disk")
    func corruptedItemSurfaces() async throws {
        let configuration = try configuration()
        guard case .emptyWithBiometrics(let empty) = try retrieve(configuration) else {
            Issue.record("a fresh store is not emptyWithBiometrics")
            return
        }
        _ = try await empty.storeToBiometrics(credentials: Login(username: "bob", password: "pw"))
        let file = try onlyItemFile(under: directory.url)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        expectVaultError(.corruptedItem) { try retrieve(try self.configuration()) }
        // The non-throwing form cannot throw: it says why the vault looks empty.
        let vault = VaultFactory<Login>.retrieveVault(key: "login", configuration: try self.configuration())
        #expect(vault.kind == .empty)
        #expect(vault.invalidation == .unreadable(.corruptedItem))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file))) == bytes, "the corrupted item was touched")
    }

    @Test("a wrong passphrase fails before any vault is retrieved")
    func wrongPassphrase() throws {
        let passphrase = SecretBytes(utf8: "open sesame")
        let store = try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(passphrase))
        let configuration = VaultConfiguration(store: store, authenticator: device.authenticator)
        guard case .emptyWithBiometrics(let empty) = try retrieve(configuration) else {
            Issue.record("a fresh store is not emptyWithBiometrics")
            return
        }
        _ = try empty.storeToKeychain(credentials: Login(username: "carol", password: "pw"))
        expectVaultError(.authenticationFailed) {
            try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(SecretBytes(utf8: "open sesame!")))
        }
        let reopened = VaultConfiguration(
            store: try EncryptedFileStore(directory: directory.storeURL, keySource: .passphrase(passphrase)),
            authenticator: device.authenticator)
        #expect(try retrieve(reopened).credentials == Login(username: "carol", password: "pw"))
    }
}
