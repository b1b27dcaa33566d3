#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Secret bytes: never printed, zeroed when the last copy goes away, compared in constant time.
///
/// Use ``withUnsafeBytes(_:)`` to hand the bytes to an API; avoid ``copyBytes()`` where a borrow will do,
/// since an `Array` copy is not zeroed.
public struct SecretBytes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    private let storage: Storage

    public init(_ bytes: some Collection<UInt8>) {
        storage = Storage(bytes)
    }

    public init(utf8 string: String) {
        var string = string
        storage = string.withUTF8 { Storage($0) }
    }

    public var count: Int { storage.buffer.count }
    public var isEmpty: Bool { storage.buffer.isEmpty }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage.buffer))
    }

    /// An ordinary array copy of the bytes. The copy is not zeroed: keep its lifetime short.
    public func copyBytes() -> [UInt8] { Array(storage.buffer) }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }

    /// Constant-time comparison (the time depends on the lengths only).
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs.storage.buffer[index] ^ rhs.storage.buffer[index] }
        return difference == 0
    }

    // @unchecked Sendable: the buffer is written only in `init` (before the object is shared) and in
    // `deinit` (after the last reference is gone); in between it is only read. No two threads can ever
    // write it, and no read can race a write.
    private final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        private let allocation: UnsafeMutableBufferPointer<UInt8>

        init(_ bytes: some Collection<UInt8>) {
            allocation = .allocate(capacity: max(bytes.count, 1))
            let initialized = allocation.initialize(fromContentsOf: bytes)
            buffer = UnsafeMutableBufferPointer(rebasing: allocation[0..<initialized])
        }

        deinit {
            zeroize(allocation)
            allocation.deallocate()
        }
    }
}

// A zeroing call the optimiser may not drop (a plain loop before `deallocate` is a dead store).
#if canImport(Darwin)
private func zeroize(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
    _ = memset_s(buffer.baseAddress, buffer.count, 0, buffer.count)
}
#else
private func zeroize(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
    explicit_bzero(buffer.baseAddress!, buffer.count)
}
#endif
