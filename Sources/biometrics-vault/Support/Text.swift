#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Text and process helpers that full Foundation would provide (`String(format:)`,
// `padding(toLength:)`, `range(of:)`, `NSString.lastPathComponent`, `Foundation.exit`). The CLI links
// FoundationEssentials only, which has none of them and no ICU data (Docs/Benchmarks.md).
enum Text {
    /// `value` in hexadecimal, zero-padded to at least `digits` digits: `hex(0x1b, digits: 4)` is "001b".
    static func hex(_ value: some BinaryInteger, digits: Int, uppercase: Bool = false) -> String {
        let text = String(value, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `text` followed by spaces up to `width` characters (never cut).
    static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// What follows the first occurrence of `marker` in `text` (compared byte by byte), or nil.
    static func suffix(of text: String, after marker: String) -> Substring? {
        let bytes = text.utf8, needle = marker.utf8
        var start = bytes.startIndex
        while start != bytes.endIndex {
            if bytes[start...].starts(with: needle) {
                return text[bytes.index(start, offsetBy: needle.count)...]
            }
            start = bytes.index(after: start)
        }
        return needle.isEmpty ? text[...] : nil
    }

    /// The last component of a path: "/usr/bin/git-credential-x" gives "git-credential-x".
    static func lastPathComponent(_ path: String) -> Substring {
        let trimmed = path.utf8.reversed().drop(while: { $0 == UInt8(ascii: "/") }).count
        let end = path.utf8.index(path.utf8.startIndex, offsetBy: trimmed)
        let head = path[..<end]
        guard let slash = head.utf8.lastIndex(of: UInt8(ascii: "/")) else { return head }
        return head[head.utf8.index(after: slash)...]
    }
}

/// Ends the process with `status` (C `exit`: buffered output is flushed, atexit handlers run).
func exitProcess(_ status: Int32) -> Never {
    exit(status)
}
