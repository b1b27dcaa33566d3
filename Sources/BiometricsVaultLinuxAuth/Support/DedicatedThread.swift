#if os(Linux)
import BiometricsVaultCore
import CGio

/// Runs blocking platform work (a GLib main loop, a PAM conversation, the platform default's fprintd
/// probe) on its own thread, so it never blocks Swift's cooperative pool, and hands the result back to
/// async code.
package enum DedicatedThread {
    package static func run<T: Sendable>(
        name: String, _ body: @escaping @Sendable () throws(VaultError) -> T
    ) async throws(VaultError) -> T {
        let result: Result<T, VaultError> = await withCheckedContinuation { continuation in
            let status = DedicatedThread.start(name: name) {
                do throws(VaultError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if status != 0 {
                continuation.resume(returning: .failure(VaultError(.authenticationFailed, underlying: .errno(status))))
            }
        }
        return try result.get()
    }

    /// Starts a detached thread named `name` running `body`; 0, or the errno when no thread could be
    /// started (then `body` never runs). A GLib thread, not Foundation's `Thread`, which would link full
    /// Foundation, and ICU, into the CLI.
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var error: UnsafeMutablePointer<GError>?
        let thread = g_thread_try_new(name, { context in
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context, &error)
        guard let thread else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            let code = error?.pointee.code ?? 0
            g_clear_error(&error)
            return code == 0 ? EAGAIN : code
        }
        g_thread_unref(thread)  // detached: the thread's own reference ends with it
        return 0
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
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
