#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a line-based request from a descriptor with a read(2) loop, bounded, and zeroes what it read.
struct RequestReader {
    let limit: Int
    private var bytes: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 4096)

    init(limit: Int) { self.limit = limit }

    /// The bytes before the first blank line (or all of them at EOF); `nil` when there are more than
    /// `limit` before it. A read error ends the input like EOF.
    mutating func readUntilBlankLine(from descriptor: Int32) -> [UInt8]? {
        var lineStart = 0
        var scanned = 0
        while true {
            // Scan the complete lines read so far for the blank one.
            while let newline = bytes[scanned...].firstIndex(of: 0x0A) {
                let lineLength = newline - lineStart
                if lineLength == 0 || (lineLength == 1 && bytes[lineStart] == 0x0D) {
                    return lineStart <= limit ? Array(bytes[..<lineStart]) : nil
                }
                lineStart = newline + 1
                scanned = lineStart
            }
            scanned = bytes.count
            if bytes.count > limit { return nil }
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return Array(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Reads everything up to EOF; `nil` when there are more than `limit` bytes.
    mutating func readAll(from descriptor: Int32) -> [UInt8]? {
        while bytes.count <= limit {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return Array(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return nil
    }

    mutating func erase() {
        for index in bytes.indices { bytes[index] = 0 }
        for index in chunk.indices { chunk[index] = 0 }
    }
}
