import Foundation
import Testing

/// The threads test bodies run on: many, because the library's store API is synchronous (as the Keychain's
/// is) and a body that calls it blocks its thread for as long as the store takes, up to a store's
/// deadline against a stopped daemon. On Swift's cooperative pool (one thread per CPU) two such bodies
/// would stop every other test of the parallel run, and a test that times its steps (a lock held for
/// less than the store's 5 s bound, a prepared connection's 0.5 s deadline) would see seconds pass
/// between two of its lines.
package final class TestThreadPool: TaskExecutor, @unchecked Sendable {
    // Safe to share: `jobs` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    package static let shared = TestThreadPool(threads: 16)

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "test-\(index)"
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
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
