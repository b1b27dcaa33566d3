#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultSecretService
import BiometricsVaultTestSupport
import BiometricsVaultTesting
import Testing

/// The `SecretStore` contract, against the real gnome-keyring on the session bus.
@Suite(.onTestThreads, .needs(Daemon.session))
struct SecretServiceConformanceTests {
    @Test(arguments: SecretStoreConformance.Check.allCases)
    func conformance(_ check: SecretStoreConformance.Check) async throws {
        let store = try Daemon.sessionStore()
        try await SecretStoreConformance(store: store, servicePrefix: "bv-test.conformance").run(check)
    }

    @Test func nameIsSecretService() throws {
        #expect(try Daemon.sessionStore().name == "secret-service")
    }
}
#endif
