#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a file descriptor with a write(2) loop (FileHandle.write traps on EPIPE when git has
/// closed the pipe; here that is an error the caller ignores).
enum RawOutput {
    @discardableResult
    static func put(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            written += count
        }
        return true
    }
}
