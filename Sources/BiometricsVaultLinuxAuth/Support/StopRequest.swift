#if os(Linux)
import BiometricsVaultCore

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
