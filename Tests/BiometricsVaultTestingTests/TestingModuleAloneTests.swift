// Only the simulated device's module, as DESIGN.md's example of it is written: an app's test that imports
// `BiometricsVaultTesting` alone must see the vault's API too.
import BiometricsVaultTesting
import Testing

@Suite struct TestingModuleAloneTests {
    struct Login: Codable, Sendable, Equatable {
        var user: String
    }

    @Test func theSimulatedDeviceAloneDrivesAVaultThroughEveryPromptItCounts() async throws {
        let device = SimulatedDevice(biometryType: .faceID)
        device.enqueue(.match)
        let config = VaultConfiguration(store: device.store, authenticator: device.authenticator)
        guard case .emptyWithBiometrics(let empty) = VaultFactory<Login>.retrieveVault(key: "login", configuration: config) else {
            Issue.record("a new device's vault is not emptyWithBiometrics")
            return
        }
        let stored = try await empty.storeToBiometrics(credentials: Login(user: "ada"))
        #expect(stored.credentials == Login(user: "ada"))
        #expect(device.promptCount == 1)

        device.changeEnrollment()
        switch VaultFactory<Login>.retrieveVault(key: "login", configuration: config) {
        case .empty(let vault), .emptyWithBiometrics(let vault): #expect(vault.invalidation == .biometryChanged)
        default: Issue.record("an item bound to the changed enrollment was not invalidated")
        }
        #expect(device.promptCount == 1)
    }
}
