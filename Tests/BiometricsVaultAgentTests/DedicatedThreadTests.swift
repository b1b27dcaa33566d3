#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess
import Dispatch
import Testing

/// Blocking work (the agent's loop, a prompt, a GLib main loop) runs on a thread of its own: a body that
/// waits does not hold one of Swift's cooperative threads, which are as many as the CPUs.
@Suite struct DedicatedThreadTests {
    /// More waiting bodies than there are cooperative threads all run at once: none of them waits on a
    /// thread of the pool (there, the later ones would wait for the earlier ones, which wait for them).
    @Test func waitingBodiesDoNotHoldTheCooperativePool() async throws {
        let bodies = 8
        let arrived = LockedValue(0)
        let allArrived = DispatchSemaphore(value: 0)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<bodies {
                group.addTask {
                    try await DedicatedThread.run(name: "waiting-body") { () throws(VaultError) -> Bool in
                        if arrived.withLock({ $0 += 1; return $0 }) == bodies {
                            for _ in 0..<bodies { allArrived.signal() }
                        }
                        return allArrived.wait(timeout: .now() + .seconds(20)) == .success
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: bodies), "the bodies did not all run at once")
    }

    @Test func anErrorOfTheBodyIsThrown() async {
        await #expect(throws: VaultError(.storeUnavailable, underlying: .message("no"))) {
            try await DedicatedThread.run(name: "failing-body") { () throws(VaultError) -> Int in throw VaultError(.storeUnavailable, underlying: .message("no")) }
        }
    }
}
#endif
