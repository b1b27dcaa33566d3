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

    /// A descriptor holding the lock, as a writer that keeps it does.
    func heldLock() throws -> Int32 {
        let descriptor = try openLock()
        guard FileLock.lockExclusively(descriptor, idleLimit: .seconds(1)) == .acquired else {
            close(descriptor)
            throw TestFailure("the free lock was not taken")
        }
        return descriptor
    }

    /// Writers that take the lock again the moment they let it go, for five times the waiters' bound:
    /// sixteen waiters all get their turn, none gives up as if a stopped holder kept the lock. (A waiter
    /// may time out when one holder did keep it for the bound: a holder thread not scheduled for that
    /// long on a loaded machine, which is what the bound is for.)
    @Test func waitersBehindBusyHoldersWaitTheirTurn() async throws {
        let busyFor = Duration.milliseconds(1_500), idleLimit = Duration.milliseconds(300)
        let counts = Counts(holders: 2)
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
                    counts.hold(descriptor) { usleep(20_000) }
                }
                counts.running.subtract(1, ordering: .relaxed)
            }
        }
        for holder in holders { holder.start() }
        try await Task.sleep(for: .milliseconds(100))
        let waiters = try (0..<16).map { _ in
            let descriptor = try openLock()
            return Thread {
                defer { close(descriptor) }
                let outcome = FileLock.lockExclusively(descriptor, idleLimit: idleLimit)
                if outcome == .acquired { counts.hold(descriptor) {} }
                counts.record(outcome)
            }
        }
        for waiter in waiters { waiter.start() }
        while counts.running.load(ordering: .relaxed) > 0 || counts.waiterOutcomes.withLock({ $0.count }) < waiters.count {
            try await Task.sleep(for: .milliseconds(20))
        }
        let outcomes = counts.waiterOutcomes.withLock { $0 }
        let longestHold = counts.longestHold.withLock { $0 }
        #expect(outcomes.allSatisfy { $0 == .acquired || $0 == .timedOut }, "\(outcomes)")
        #expect(
            !outcomes.contains(.timedOut) || longestHold >= idleLimit * 0.9,
            "waiters gave up although no holder kept the lock for the bound (longest hold \(longestHold)): \(outcomes)")
        #expect(counts.holderFailures.load(ordering: .relaxed) == 0)
        #expect(counts.acquisitions.load(ordering: .relaxed) > 10, "the holders took the lock again and again")
    }

    final class Counts: Sendable {
        let running: Atomic<Int>
        let acquisitions = Atomic<Int>(0)
        let holderFailures = Atomic<Int>(0)
        let waiterOutcomes = Mutex<[FileLock.Outcome]>([])
        let longestHold = Mutex<Duration>(.zero)

        init(holders: Int) { running = Atomic(holders) }

        /// Runs `body` holding the lock just taken, then releases it, keeping the longest hold.
        func hold(_ descriptor: Int32, _ body: () -> Void) {
            let taken = ContinuousClock.now
            body()
            let held = taken.duration(to: .now)
            flock(descriptor, LOCK_UN)
            longestHold.withLock { $0 = max($0, held) }
        }

        func record(_ outcome: FileLock.Outcome) { waiterOutcomes.withLock { $0.append(outcome) } }
    }

    /// A waiter that did not run for a while (a suspended machine: its clock jumps) does not charge that
    /// time to the holder: it still watches the holder for the bound before it gives up.
    @Test func aWaiterThatDidNotRunDoesNotChargeTheHolder() throws {
        let holder = try heldLock()
        defer { close(holder) }
        let waiter = try openLock()
        defer { close(waiter) }
        let clock = JumpingClock(jump: .seconds(3_600), atReading: 3)
        let started = ContinuousClock.now
        #expect(FileLock.lockExclusively(waiter, idleLimit: .milliseconds(300), clock: clock) == .timedOut)
        #expect(started.duration(to: .now) >= .milliseconds(300) - FileLock.longestCountedPoll)
        #expect(clock.readings.load(ordering: .relaxed) > 3, "the clock jumped while the waiter watched")
    }

    /// The continuous clock, one hour ahead from its `atReading`th reading on.
    final class JumpingClock: Clock, Sendable {
        let jump: Duration
        let atReading: Int
        let readings = Atomic<Int>(0)

        init(jump: Duration, atReading: Int) {
            self.jump = jump
            self.atReading = atReading
        }

        var now: ContinuousClock.Instant {
            let reading = readings.add(1, ordering: .relaxed).newValue
            return ContinuousClock.now + (reading >= atReading ? jump : .zero)
        }
        var minimumResolution: Duration { ContinuousClock().minimumResolution }
        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            try await Task.sleep(for: now.duration(to: deadline))
        }
    }

    /// A holder that keeps the lock (a stopped writer): the waiter gives up after the bound, not before.
    @Test func aWaiterBehindAHolderThatKeepsTheLockGivesUpAfterTheBound() throws {
        let holder = try heldLock()
        defer { close(holder) }
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
        let holder = try heldLock()
        defer { close(holder) }
        let marking = Marking()
        let marker = Thread {
            // Marks every 10 ms until the waiter is done (the descriptor stays open until then).
            while marking.keepMarking.load(ordering: .acquiring) {
                _ = futimens(holder, nil)
                usleep(10_000)
            }
            marking.done.store(true, ordering: .releasing)
        }
        marker.start()
        let waiter = try openLock()
        defer { close(waiter) }
        let idleLimit = Duration.milliseconds(400)
        let started = ContinuousClock.now
        let outcome = FileLock.lockExclusively(waiter, idleLimit: idleLimit)
        marking.keepMarking.store(false, ordering: .releasing)
        #expect(outcome == .busy)
        #expect(ContinuousClock.now - started >= idleLimit * FileLock.busyLimitFactor)
        while !marking.done.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(20)) }
    }

    final class Marking: Sendable {
        let keepMarking = Atomic<Bool>(true)
        let done = Atomic<Bool>(false)
    }
}
