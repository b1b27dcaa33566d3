import BiometricsVaultCore
import BiometricsVaultTesting
import Testing

/// Run in the package's suite, and under ThreadSanitizer by scripts/extra-tests/10-tsan.sh through the package
/// beside this folder (Tests/ThreadSanitizer/Package.swift), which builds only what these tests import.
struct ConcurrencyTests {
    /// A simulated device and a configuration over it.
    struct Fixture {
        let device: SimulatedDevice
        let configuration: VaultConfiguration
        let key = "credentials"

        init(reuse: AuthenticationReuse = .never) {
            device = SimulatedDevice()
            configuration = VaultConfiguration(
                store: device.store, authenticator: device.authenticator, reuse: reuse, service: "tests",
                clock: device.clock.vaultClock)
        }
    }

    struct Counter: Codable, Sendable, Equatable {
        var writer: Int
        var payload: String
    }

    @Test func hundredConcurrentUpdatesLeaveOneCompleteValue() async throws {
        let fixture = Fixture()
        let configuration = fixture.configuration
        let key = fixture.key
        let first = try VaultFactory<Counter>.retrieveVaultOrThrow(key: key, configuration: configuration)
            .storeToKeychain(credentials: Counter(writer: -1, payload: "start"))
        let written = (0..<100).map { Counter(writer: $0, payload: String(repeating: "p", count: $0 * 7)) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in written {
                group.addTask { _ = try await first.update(credentials: value) }
            }
            try await group.waitForAll()
        }
        let final = try VaultFactory<Counter>.retrieveVaultOrThrow(key: key, configuration: configuration).credentials
        #expect(written.contains(final))
        #expect(fixture.device.itemCount == 1)
    }

    @Test func concurrentProtectedUpdatesAndLocksNeverLoseTheItem() async throws {
        let fixture = Fixture(reuse: .session(timeout: .seconds(600)))
        let configuration = fixture.configuration
        let key = fixture.key
        let vault = try await VaultFactory<Counter>.retrieveVaultOrThrow(key: key, configuration: configuration)
            .storeToBiometrics(credentials: Counter(writer: -1, payload: "start"))
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<50 {
                group.addTask {
                    if writer == 25 { _ = try? vault.lock() }
                    _ = try? await vault.update(credentials: Counter(writer: writer, payload: "x"))
                }
                group.addTask {
                    _ = try? VaultFactory<Counter>.retrieveVaultOrThrow(key: key, configuration: configuration)
                }
            }
        }
        guard case .locked(let locked) = try VaultFactory<Counter>.retrieveVaultOrThrow(key: key, configuration: configuration) else {
            Issue.record("the protected item must still be there"); return
        }
        let value = try await locked.unlock().credentials
        #expect(value.writer >= -1 && value.writer < 50)
    }
}
