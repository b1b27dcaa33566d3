#if canImport(Darwin)
// Apple only: `InstallMarker.userDefaults` exists where the system deletes an app's defaults with the app.
import BiometricsVaultCore
import BiometricsVaultTesting
import Foundation
import Testing

extension ReinstallTests {
    @Test func userDefaultsMarkerRemembersKeys() throws {
        let suite = "bv-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        let device = SimulatedDevice()
        var configuration = VaultConfiguration(store: device.store, authenticator: device.authenticator, service: "app")
        configuration.installMarker = .userDefaults(suiteName: suite)
        _ = try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration).storeToKeychain(credentials: alice)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration).credentials == alice)
        // The app's defaults are deleted with the app: the item is reset on the next launch.
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
        #expect(try VaultFactory<Login>.retrieveVaultOrThrow(key: "login", configuration: configuration).invalidation == .appReinstalled)
    }
}
#endif
