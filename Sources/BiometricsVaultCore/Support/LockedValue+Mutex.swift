#if !canImport(Darwin)
import Synchronization

/// A value behind a lock: `Synchronization.Mutex`, which every Swift 6 toolchain off Apple platforms has
/// (NSLock would link full Foundation into the CLI). Same interface as the Apple build's NSLock version.
public final class LockedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.withLock { value in try body(&value) }
    }
}
#endif
