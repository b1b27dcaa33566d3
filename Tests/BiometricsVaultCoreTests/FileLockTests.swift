#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BiometricsVaultCore
import BiometricsVaultTestSupport
import Foundation
import Synchronization
import Testing

/// The bound on a wait for a file lock is on one holder keeping it, not on the whole wait: a writer
/// behind other writers that take the lock one after the other waits its turn, and one behind a stopped
/// holder gives up. Each descriptor is its own open file description, so threads exclude each other here
/// exactly as processes do.
@Suite(.onTestThreads)
struct FileLockTests {
    let lockPath: String

    init() throws {
        lockPath = try TestScratch.newDirectory("lock").appendingPathComponent("file.lock").path
    }

    func openLock() throws -> Int32 {
        let descriptor = open(lockPath, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TestFailure("open \(lockPath): errno \(errno)") }
        return descriptor
    }

    /// Writers that take the lock again the moment they let it go, for five times the waiter's bound:
    /// the waiter is not timed out, and gets the lock.
    @Test func aWaiterBehindBusyHoldersWaitsItsTurn() async throws {
        let busyFor = Duration.milliseconds(1_500), idleLimit = Duration.milliseconds(300)
        let counts = Counts()
        let holders = try (0..<2).map { _ in
            let descriptor = try openLock()
            return Thread {
                defer { close(descriptor) }
                let end = ContinuousClock.now + busyFor
                while ContinuousClock.now < end {
                    guard FileLock.lockExclusively(descriptor, idleLimit: .seconds(30)) == .acquired else {
                        counts.holderFailures.add(1, ordering: .relaxed)
                        break
                    }
                    counts.acquisitions.add(1, ordering: .relaxed)
                    usleep(20_000)
                    flock(descriptor, LOCK_UN)
                }
                counts.running.subtract(1, ordering: .relaxed)
            }
        }
        for holder in holders { holder.start() }
        try await Task.sleep(for: .milliseconds(100))
        let waiter = try openLock()
        defer { close(waiter) }
        #expect(FileLock.lockExclusively(waiter, idleLimit: idleLimit) == .acquired)
        flock(waiter, LOCK_UN)
        while counts.running.load(ordering: .relaxed) > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(counts.holderFailures.load(ordering: .relaxed) == 0)
        #expect(counts.acquisitions.load(ordering: .relaxed) > 10, "the holders took the lock again and again")
    }

    final class Counts: Sendable {
        let running = Atomic<Int>(2)
        let acquisitions = Atomic<Int>(0)
        let holderFailures = Atomic<Int>(0)
    }

    /// A holder that keeps the lock (a stopped writer): the waiter gives up after the bound, not before.
    @Test func aWaiterBehindAHolderThatKeepsTheLockGivesUpAfterTheBound() throws {
        let holder = try openLock()
        defer { close(holder) }
        #expect(FileLock.lockExclusively(holder, idleLimit: .seconds(1)) == .acquired)
        let waiter = try openLock()
        defer { close(waiter) }
        let started = ContinuousClock.now
        #expect(FileLock.lockExclusively(waiter, idleLimit: .milliseconds(300)) == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        flock(holder, LOCK_UN)
        #expect(FileLock.lockExclusively(waiter, idleLimit: .milliseconds(300)) == .acquired)
    }

    /// A holder that keeps the lock and keeps marking it (a same-user program can): the waiter still
    /// gives up, after `busyLimitFactor` times its bound.
    @Test func aWaiterBehindAHolderThatKeepsMarkingGivesUpInTheEnd() async throws {
        let holder = try openLock()
        defer { close(holder) }
        #expect(FileLock.lockExclusively(holder, idleLimit: .seconds(1)) == .acquired)
        let marking = Counts()
        let marker = Thread {
            // Marks for 2 s, longer than the waiter waits, then says it is done (the descriptor stays
            // open until then).
            for _ in 0..<100 {
                _ = futimens(holder, nil)
                usleep(20_000)
            }
            marking.running.store(0, ordering: .releasing)
        }
        marker.start()
        let waiter = try openLock()
        defer { close(waiter) }
        let idleLimit = Duration.milliseconds(100)
        let started = ContinuousClock.now
        #expect(FileLock.lockExclusively(waiter, idleLimit: idleLimit) == .busy)
        #expect(ContinuousClock.now - started >= idleLimit * FileLock.busyLimitFactor)
        while marking.running.load(ordering: .acquiring) > 0 { try await Task.sleep(for: .milliseconds(20)) }
    }
}
