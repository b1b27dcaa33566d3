#if !canImport(Darwin)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock: a `pthread_mutex_t`, what NSLock is made of here (NSLock itself would link
/// full Foundation, and ICU, into the CLI). `Synchronization.Mutex` is not used: it waits on raw futexes,
/// which ThreadSanitizer cannot see, so every value it guards showed up as a data race in CI.
///
/// @unchecked Sendable: `value` is only read or written between `pthread_mutex_lock` and
/// `pthread_mutex_unlock` of the one mutex this instance owns (allocated once, never moved, destroyed in
/// deinit), so every access is serialised; `Value: Sendable` means the values handed out may cross threads.
package final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
#endif
