// Walks the whole state diagram on the simulated device and prints each state and error.
// Run: swift run VaultWalkthrough
import BiometricsVault
import BiometricsVaultTesting

struct Credentials: Codable, Sendable {
    var username: String
    var token: String
}

func describe(_ vault: Vault<Credentials>) -> String {
    switch vault {
    case .emptyWithBiometrics(let empty):
        return "emptyWithBiometrics" + (empty.invalidation.map { " (invalidated: \($0))" } ?? "")
    case .empty(let empty):
        return "empty" + (empty.invalidation.map { " (invalidated: \($0))" } ?? "")
    case .keychain(let vault): return "keychain (user \(vault.credentials.username))"
    case .keychainUpgradable(let vault): return "keychainUpgradable (user \(vault.credentials.username))"
    case .biometrics(let vault): return "biometrics (user \(vault.credentials.username), unlocked)"
    case .locked: return "locked"
    }
}

func step(_ title: String, _ body: () async throws -> Vault<Credentials>) async -> Vault<Credentials>? {
    do {
        let vault = try await body()
        print("\(title) -> \(describe(vault))")
        return vault
    } catch let error as VaultError {
        print("\(title) -> error \(error.code)")
        return nil
    } catch {
        print("\(title) -> unexpected \(type(of: error))")
        return nil
    }
}

let device = SimulatedDevice(biometryType: .faceID)
let configuration = VaultConfiguration(
    store: device.store, authenticator: device.authenticator, service: "com.example.walkthrough")
let key = "session"
let alice = Credentials(username: "alice", token: "t-1")

var vault = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
print("retrieveVault -> \(describe(vault))")
vault = await step("storeToKeychain") { try vault.storeToKeychain(credentials: alice) } ?? vault
vault = await step("update") { try await vault.update(credentials: Credentials(username: "alice", token: "t-2")) } ?? vault
vault = await step("upgrade (Face ID matches)") { try await vault.upgrade() } ?? vault
vault = await step("lock") { try vault.lock() } ?? vault
device.enqueue(.userCancel)
_ = await step("unlock (user cancels)") { try await vault.unlock() }
device.enqueue(.noMatch, .noMatch, .noMatch, .noMatch, .noMatch)
for attempt in 1...5 { _ = await step("unlock (no match \(attempt))") { try await vault.unlock() } }
_ = await step("unlock (locked out)") { try await vault.unlock() }
_ = await step("reauthenticateOwner (passcode)") { try await vault.reauthenticateOwner(); return vault }
vault = await step("unlock (Face ID matches)") { try await vault.unlock() } ?? vault
vault = await step("downgrade") { try vault.downgrade() } ?? vault
vault = await step("reset") { try vault.reset() } ?? vault
vault = await step("storeToBiometrics") { try await vault.storeToBiometrics(credentials: alice) } ?? vault
device.changeEnrollment()
print("(enrollment changed on the device)")
vault = VaultFactory<Credentials>.retrieveVault(key: key, configuration: configuration)
print("retrieveVault -> \(describe(vault))")
_ = await step("storeToKeychain with an empty key") {
    try VaultFactory<Credentials>.retrieveVaultOrThrow(key: "", configuration: configuration)
}
print("prompts shown: \(device.promptCount)")
