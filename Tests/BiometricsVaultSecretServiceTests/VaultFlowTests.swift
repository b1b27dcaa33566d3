#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Foundation
import Testing

/// The whole public vault API over the real Secret Service (biometrics simulated).
@Suite(.onTestThreads, .needs(Daemon.session))
struct SecretServiceVaultFlowTests {
    struct Credentials: Codable, Sendable, Equatable {
        var username: String
        var token: String
    }

    @Test func fullLifecycleThroughThePublicAPI() async throws {
        let store = try Daemon.sessionStore()
        let device = SimulatedDevice()
        let configuration = VaultConfiguration(
            store: try SecretServiceStore(), authenticator: device.authenticator, service: uniqueService("vault-flow"))
        let key = "session"
        let id = try SecretItemID(service: configuration.service, key: key)
        defer { try? store.delete(id) }
        let alice = Credentials(username: "alice", token: "t-1")

        var vault = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        guard case .emptyWithBiometrics = vault else { throw TestFailure("expected emptyWithBiometrics, got \(vault)") }

        vault = try vault.storeToKeychain(credentials: alice)
        // Plain: another process sees the JSON under service/username.
        let lookup = try await Shell.run("secret-tool", ["lookup", "service", configuration.service, "username", key])
        #expect(try JSONDecoder().decode(Credentials.self, from: Data(lookup.stdout.utf8)) == alice)
        guard case .keychainUpgradable(let plainVault) = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { throw TestFailure("expected keychainUpgradable after storeToKeychain") }
        #expect(plainVault.credentials == alice)

        let unlocked = try await plainVault.upgrade()
        #expect(unlocked.credentials == alice)
        #expect(try await Shell.run("secret-tool", ["lookup", "service", configuration.service, "username", key]).stdout.isEmpty)
        guard case .locked(let locked) = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { throw TestFailure("expected locked after upgrade") }

        let reopened = try await locked.unlock()
        #expect(reopened.credentials == alice)
        let bob = Credentials(username: "alice", token: "t-2")
        let updated = try await reopened.update(credentials: bob)
        #expect(updated.credentials == bob)

        let downgraded = try updated.downgrade()
        #expect(downgraded.credentials == bob)
        guard case .keychainUpgradable(let again) = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { throw TestFailure("expected keychainUpgradable after downgrade") }
        #expect(again.credentials == bob)

        let empty = try again.reset()
        guard case .emptyWithBiometrics = empty else { throw TestFailure("expected an empty vault after reset") }
        guard case .emptyWithBiometrics = try VaultFactory<Credentials>.retrieveVaultOrThrow(key: key, configuration: configuration)
        else { throw TestFailure("expected an empty vault after reset") }
        #expect(try store.keys(service: configuration.service).isEmpty)
    }
}
#endif
