#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Waiting for an exclusive `flock` that other processes take and release, with a bound that tells a
/// stopped or hung holder from a busy one.
///
/// The wait polls (`LOCK_NB`), because a blocking `flock` can only be interrupted by a signal, which a
/// library must not install. A bound on the whole wait would fail a writer whose turn has not come while
/// other writers take the lock one after the other for longer than the bound: `flock` is not fair, and a
/// poller sees the lock free only in the short gaps between their writes. So every holder marks its
/// acquisition on the lock file (its modification time), and the bound counts from the last acquisition
/// a waiter saw: it expires only when the same holder has kept the lock for all of it. The whole wait
/// still ends, at ``busyLimitFactor`` times that bound: a writer never waits forever behind others (or
/// behind a same-user program that keeps marking the file).
///
/// Both bounds count the time the waiter watched, not the clock: a poll counts for at most
/// ``longestCountedPoll``. A waiter that did not run (a suspended machine, a process stopped and
/// continued, a machine so loaded that neither waiter nor holder was scheduled) cannot tell what the
/// holder did meanwhile, and a busy holder that was not scheduled either is not a hung one.
package enum FileLock {
    package enum Outcome: Equatable, Sendable {
        case acquired
        /// One holder kept the lock for `idleLimit` while the waiter watched: it is stopped or hung.
        case timedOut
        /// Other writers kept the lock busy for `busyLimitFactor` times `idleLimit`.
        case busy
        /// `flock` failed for another reason than a held lock (its `errno`).
        case failed(Int32)
    }

    /// How many times `idleLimit` a waiter waits at most behind writers that keep taking the lock.
    package static let busyLimitFactor = 10

    /// The most one poll adds to the time waited: a few times the longest pause between polls.
    package static let longestCountedPoll = Duration.milliseconds(50)

    /// Takes the exclusive lock on `descriptor` (an open lock file); the caller releases it (`LOCK_UN`
    /// or `close`). Fails with `.timedOut` when one holder has kept the lock for `idleLimit`, and with
    /// `.busy` after `busyLimitFactor` times `idleLimit` in all, both in time the waiter watched.
    /// `clock` is the waiter's time (a test's clock can jump, as a suspended machine's does).
    package static func lockExclusively<WaiterClock: Clock<Duration>>(
        _ descriptor: Int32, idleLimit: Duration, clock: WaiterClock = ContinuousClock()
    ) -> Outcome {
        let busyLimit = idleLimit * busyLimitFactor
        var lastAcquisition = acquisitionMark(descriptor)
        var previousAttempt = clock.now
        var heldFor = Duration.zero, waited = Duration.zero
        var pause: UInt32 = 500  // microseconds, doubling up to 10 ms
        while true {
            let attempt = clock.now
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { break }
            let number = errno
            if number == EINTR { continue }
            guard number == EWOULDBLOCK else { return .failed(number) }
            // Read after the failed attempt: an acquisition before it shows here.
            let mark = acquisitionMark(descriptor)
            let watched = min(previousAttempt.duration(to: attempt), longestCountedPoll)
            previousAttempt = attempt
            waited += watched
            if mark != lastAcquisition {
                lastAcquisition = mark
                heldFor = .zero
                pause = 500
            } else {
                heldFor += watched
            }
            guard heldFor < idleLimit else { return .timedOut }
            guard waited < busyLimit else { return .busy }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
        // Marks this acquisition for the waiters. The owner may set the times of a file it can only read;
        // where it cannot (another owner, a read-only mount), waiters fall back to a bound on the whole wait.
        _ = futimens(descriptor, nil)
        return .acquired
    }

    /// The lock file's modification time, as the holders mark it.
    private static func acquisitionMark(_ descriptor: Int32) -> [Int] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return [] }
        #if canImport(Darwin)
        return [info.st_mtimespec.tv_sec, info.st_mtimespec.tv_nsec]
        #else
        return [info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        #endif
    }
}
