#if os(Linux)
import BiometricsVaultCore
import Foundation

/// Runs blocking platform work (a GLib main loop, a PAM conversation) on its own thread, so it never
/// blocks Swift's cooperative pool, and hands the result back to async code.
enum DedicatedThread {
    static func run<T: Sendable>(
        name: String, _ body: @escaping @Sendable () throws(VaultError) -> T
    ) async throws(VaultError) -> T {
        let result: Result<T, VaultError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                do throws(VaultError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }
}

/// A flag another thread (a task-cancellation handler, a timer) sets to stop a blocking operation.
final class StopRequest: Sendable {
    enum Reason: Sendable, Equatable { case taskCancelled }
    private let state = LockedValue<(reason: Reason?, wake: (@Sendable () -> Void)?)>((nil, nil))

    var reason: Reason? { state.withLock { $0.reason } }

    /// Sets what wakes the blocked thread; runs it at once if a stop was already requested.
    func onStop(_ wake: @escaping @Sendable () -> Void) {
        let stopped = state.withLock { value -> Bool in
            value.wake = wake
            return value.reason != nil
        }
        if stopped { wake() }
    }

    func stop(_ reason: Reason) {
        let wake = state.withLock { value -> (@Sendable () -> Void)? in
            if value.reason == nil { value.reason = reason }
            return value.wake
        }
        wake?()
    }
}
#endif
