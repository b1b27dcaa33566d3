import Foundation
import Testing

/// The threads test bodies run on: many, because the library's store API is synchronous (as the Keychain's
/// is) and a body that calls it blocks its thread for as long as the store takes, up to a store's
/// deadline against a stopped daemon. On Swift's cooperative pool (one thread per CPU) two such bodies
/// would stop every other test of the parallel run, and a test that times its steps (a lock held for
/// less than the store's 5 s bound, a prepared connection's 0.5 s deadline) would see seconds pass
/// between two of its lines.
package final class TestThreadPool: TaskExecutor, @unchecked Sendable {
    // Safe to share: `jobs`, `idle` and `threads` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0
    private var threads = 0
    /// A job never waits for a thread while fewer than this many exist: every running one may be
    /// blocked (a store waiting out its lock bound, a test's concurrent writers), and a queued job
    /// is often the one they wait for.
    private let limit = 512

    package static let shared = TestThreadPool()

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // Each idle thread takes one queued job; a job beyond those gets a thread of its own.
        let start = jobs.count > idle && threads < limit
        if start { threads += 1 }
        condition.signal()
        condition.unlock()
        if start {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "bv-test"
            thread.start()
        }
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs a suite's tests (and theirs) on ``TestThreadPool``.
package struct OnTestThreads: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(TestThreadPool.shared) { try await function() }
    }
}

extension Trait where Self == OnTestThreads {
    /// Every test of the suite runs on the test thread pool (``TestThreadPool``).
    package static var onTestThreads: Self { OnTestThreads() }
}
