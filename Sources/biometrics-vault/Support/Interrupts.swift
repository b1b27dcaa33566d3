import BiometricsVault
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ctrl-C while a command runs cancels its Swift task, so an authenticator waiting for a finger stops
/// verifying and releases the reader; the command then ends with the "cancelled" status. A second
/// Ctrl-C exits at once.
///
/// It costs a task, a signal source and the dispatch threads behind them: wrap only what may wait for
/// the user (`show` wraps only the unlock of a protected item).
///
/// A SIGINT the caller ignored when it started the CLI (`trap '' INT`, a background job of a
/// non-interactive shell) stays ignored: it cancels nothing, and the disposition is never changed.
enum Interrupts {
    static func cancellingOnInterrupt<Value: Sendable>(
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        if ProcessHardening.wasIgnoredAtStart(SIGINT) { return try await body() }
        let task = Task { try await body() }
        let presses = LockedValue(0)
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            let count = presses.withLock { count in
                count += 1
                return count
            }
            if count > 1 { exit(ExitStatus.cancelled.rawValue) }
            task.cancel()
        }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        return try await task.value
    }
}
