#if os(Linux)
import BiometricsVaultCore
import CProcessControl
import Glibc

/// A POSIX thread of its own for work that blocks: a GLib main loop, a PAM conversation, a prompt that
/// waits minutes, the agent's `poll` loop, a TPM command that may hang. Never one of Swift's cooperative
/// threads, which are as many as the CPUs and which every task of the process shares. The package's one
/// thread helper; not Foundation's `Thread`, which would link full Foundation, and ICU, into the CLI.
package enum DedicatedThread {
    /// Starts a detached thread named `name` running `body`: 0, or the errno when no thread could be
    /// started (then `body` never runs).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        switch spawn(name: name, body) {
        case .success(let thread):
            pthread_detach(thread)
            return 0
        case .failure(let status):
            return status.code
        }
    }

    /// Starts a thread named `name` running `body` that the caller must join or detach, once; `nil` when
    /// none could be started (then `body` never runs).
    package static func startJoinable(name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        try? spawn(name: name, body).get()
    }

    /// Runs `body` on a new thread named `name` and returns its result once it ends; the awaiting task's
    /// thread is free meanwhile.
    ///
    /// - Throws: what `body` throws; `storeUnavailable` (with the errno) when no thread can be started.
    package static func run<Value: Sendable>(
        name: String, _ body: @escaping @Sendable () throws(VaultError) -> Value
    ) async throws(VaultError) -> Value {
        let result: Result<Value, VaultError> = await withCheckedContinuation { continuation in
            let status = start(name: name) { continuation.resume(returning: Result { () throws(VaultError) in try body() }) }
            if status != 0 { continuation.resume(returning: .failure(VaultError(.storeUnavailable, underlying: .errno(status)))) }
        }
        return try result.get()
    }

    private struct Unstarted: Error {
        let code: Int32
    }

    /// The body crosses to the new thread as its argument: the only reference to it.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(_ name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private static func spawn(name: String, _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Unstarted> {
        // As `ps -L`, `top -H` and a debugger show it: the kernel keeps 15 bytes.
        let context = Unmanaged.passRetained(Body(String(decoding: name.utf8.prefix(15), as: UTF8.self), body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            // Named by the thread itself: one prctl, where naming it from the starter opens its
            // /proc/self/task/TID/comm (the Secret Service's connecting thread starts on a measured path).
            _ = bv_set_thread_name(body.name)
            body.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return .failure(Unstarted(code: status))
        }
        return .success(thread)
    }
}
#endif
