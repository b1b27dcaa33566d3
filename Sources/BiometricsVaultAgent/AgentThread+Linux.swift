#if os(Linux)
import BiometricsVaultCore
import Glibc

/// The agent's thread: its `poll` loop waits up to a day between requests, so it runs on a thread of
/// its own for the agent's life, never on one of Swift's cooperative threads (one per CPU, which the
/// screen-lock watcher's callbacks and every task of the process share).
enum AgentThread {
    /// A job handed to the new thread: the only reference to it crosses as the thread's argument.
    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread and returns its result once it ends; the awaiting task's thread is
    /// free meanwhile.
    ///
    /// - Throws: what `body` throws; `storeUnavailable` when no thread can be started.
    static func run<Value: Sendable>(_ body: @escaping @Sendable () throws(VaultError) -> Value) async throws(VaultError) -> Value {
        let result: Result<Value, VaultError> = await withCheckedContinuation { continuation in
            let job = Unmanaged.passRetained(Job { continuation.resume(returning: Result { () throws(VaultError) in try body() }) })
            var thread = pthread_t()
            let created = pthread_create(&thread, nil, { argument in
                guard let argument else { return nil }
                Unmanaged<Job>.fromOpaque(argument).takeRetainedValue().body()
                return nil
            }, job.toOpaque())
            if created == 0 {
                pthread_detach(thread)
            } else {
                job.release()
                continuation.resume(returning: .failure(VaultError(.storeUnavailable, underlying: .errno(created))))
            }
        }
        return try result.get()
    }
}
#endif
