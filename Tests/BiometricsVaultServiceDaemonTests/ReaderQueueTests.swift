#if os(Linux)
@testable import BiometricsVaultServiceDaemon
import BiometricsVaultCore
import Testing

/// The reader's turns, without fprintd: each check is a task that records when it held the reader and
/// lets it go when told.
@Suite struct ReaderQueueTests {
    /// What happened, in order.
    final class Journal: Sendable {
        let entries = LockedValue<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// A gate a check waits at while it holds the reader.
    final class Gate: Sendable {
        private let opened = LockedValue(false)
        func open() { opened.withLock { $0 = true } }
        func wait() async throws {
            while !opened.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    func check(_ queue: ReaderQueue, uid: UInt32, _ name: String, _ journal: Journal, gate: Gate) -> Task<Void, any Error> {
        Task {
            try await queue.hold(uid: uid) {
                journal.add("\(name) holds")
                try await gate.wait()
                journal.add("\(name) lets go")
            }
        }
    }

    /// Waits until `journal` has `count` entries.
    func settle(_ journal: Journal, _ count: Int) async throws {
        for _ in 0..<2000 where journal.all.count < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Waits until `count` checks wait in `queue`.
    func queued(_ queue: ReaderQueue, _ count: Int) async throws {
        for _ in 0..<2000 where queue.waitingCount < count { try await Task.sleep(for: .milliseconds(5)) }
        #expect(queue.waitingCount == count)
    }

    @Test func aSecondUsersCheckWaitsForTheReaderInsteadOfFailing() async throws {
        let queue = ReaderQueue()
        let journal = Journal()
        let first = Gate(), second = Gate()
        let a = check(queue, uid: 1, "a", journal, gate: first)
        try await settle(journal, 1)
        let b = check(queue, uid: 2, "b", journal, gate: second)
        try await queued(queue, 1)
        #expect(journal.all == ["a holds"])
        first.open()
        try await a.value
        try await settle(journal, 3)
        second.open()
        try await b.value
        #expect(journal.all == ["a holds", "a lets go", "b holds", "b lets go"])
    }

    /// A user's stream of checks does not keep another user waiting: the reader goes to the other
    /// user's oldest check first.
    @Test func theReaderGoesToAnotherUserBeforeTheSameUsersNextCheck() async throws {
        let queue = ReaderQueue()
        let journal = Journal()
        let gates = (0..<4).map { _ in Gate() }
        let a1 = check(queue, uid: 1, "a1", journal, gate: gates[0])
        try await settle(journal, 1)
        let a2 = check(queue, uid: 1, "a2", journal, gate: gates[1])
        try await queued(queue, 1)
        let b1 = check(queue, uid: 2, "b1", journal, gate: gates[2])
        try await queued(queue, 2)
        for gate in gates { gate.open() }
        for task in [a1, a2, b1] { try await task.value }
        #expect(journal.all.filter { $0.hasSuffix("holds") } == ["a1 holds", "b1 holds", "a2 holds"])
    }

    @Test func aUsersChecksPastTheWaitingLimitAreRefusedAtOnce() async throws {
        let queue = ReaderQueue()
        let journal = Journal()
        let gate = Gate()
        let holder = check(queue, uid: 1, "holder", journal, gate: gate)
        try await settle(journal, 1)
        let waiting = (0..<ReaderQueue.waitingPerUser).map { check(queue, uid: 1, "w\($0)", journal, gate: gate) }
        try await queued(queue, ReaderQueue.waitingPerUser)
        let refused = check(queue, uid: 1, "refused", journal, gate: gate)
        await #expect(throws: VaultError.self) { try await refused.value }
        gate.open()
        for task in [holder] + waiting { try await task.value }
        #expect(!journal.all.contains("refused holds"))
    }

    /// A check that waits too long, or whose caller leaves, gives up its place; the next one gets the reader.
    @Test func aCheckThatWaitsTooLongOrIsCancelledLeavesTheQueue() async throws {
        let queue = ReaderQueue(maximumWait: .milliseconds(100))
        let journal = Journal()
        let gate = Gate(), later = Gate()
        let holder = check(queue, uid: 1, "holder", journal, gate: gate)
        try await settle(journal, 1)
        let timedOut = check(queue, uid: 2, "timed-out", journal, gate: later)
        let error = await #expect(throws: VaultError.self) { try await timedOut.value }
        #expect(error?.code == .biometryNotAvailable)
        let cancelled = check(queue, uid: 3, "cancelled", journal, gate: later)
        try await queued(queue, 1)
        cancelled.cancel()
        await #expect(throws: (any Error).self) { try await cancelled.value }
        let next = check(queue, uid: 4, "next", journal, gate: later)
        gate.open()
        try await holder.value
        later.open()
        try await next.value
        #expect(journal.all.filter { $0.hasSuffix("holds") } == ["holder holds", "next holds"])
    }
}
#endif
