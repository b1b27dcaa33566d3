#if canImport(Darwin)
import Foundation

/// A value behind a lock. (`Synchronization.Mutex` needs macOS 15 / iOS 18; this runs on older systems.)
///
/// @unchecked Sendable: `value` is only read or written inside `lock.withLock`, so every access is
/// serialised by the NSLock; `Value: Sendable` means the values handed out may cross threads.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
#endif
