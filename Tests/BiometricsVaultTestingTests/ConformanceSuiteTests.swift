import BiometricsVault
import BiometricsVaultTesting
import Foundation
import BiometricsVaultTestSupport
import Testing

/// The conformance suite itself: a store with a known defect must fail the check meant for it.
@Suite(.onTestThreads)
struct ConformanceSuiteTests {
    /// A deliberately broken fake for a fault no real store here has: it replaces an item by deleting it
    /// and then creating it again, with a moment (as a second round trip to a daemon would take) between.
    struct DeleteThenCreateStore: SecretStore {
        let backing: SimulatedKeychain
        init(_ backing: SimulatedKeychain) { self.backing = backing }

        var name: String { "delete-then-create fake" }

        func read(_ id: SecretItemID, authorization: Authorization?) throws -> StoredItem? {
            try backing.read(id, authorization: authorization)
        }

        func write(_ item: StoredItem, for id: SecretItemID, if condition: WriteCondition, authorization: Authorization?) throws {
            try backing.delete(id)
            usleep(1_000)
            try backing.write(item, for: id, if: condition, authorization: authorization)
        }

        func delete(_ id: SecretItemID) throws { try backing.delete(id) }
        func keys(service: String) throws -> [String] { try backing.keys(service: service) }
    }

    @Test func aStoreThatDeletesThenCreatesFailsWriteReplacesAtomically() async throws {
        let store = DeleteThenCreateStore(SimulatedDevice().store)
        let failure = await #expect(throws: ConformanceFailure.self) {
            try await SecretStoreConformance(store: store).run(.writeReplacesAtomically)
        }
        #expect(failure?.message == "a read during an overwrite found no item", "\(String(describing: failure))")
    }
}
