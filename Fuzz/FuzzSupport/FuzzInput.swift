// Shared by the targets whose input is more than one value (a reply with several fields, a request and
// the stream it arrives in): reading the fuzz input as a sequence of small choices, and comparing the
// text that comes out of a decoder with the text that went in.
#if os(Linux)
import Glibc

/// The fuzz input read front to back. Past its end every read gives zeros or empty values, so any input
/// describes something and the mutator's insertions and deletions shift the fields, not the validity.
public struct FuzzInput {
    private var remaining: ArraySlice<UInt8>

    public init(_ bytes: [UInt8]) { remaining = bytes[...] }

    public var isEmpty: Bool { remaining.isEmpty }

    /// Everything not read yet.
    public mutating func rest() -> [UInt8] {
        defer { remaining = [] }
        return Array(remaining)
    }

    public mutating func byte() -> UInt8 { remaining.popFirst() ?? 0 }

    /// A big-endian integer of `count` bytes (at most 8).
    public mutating func integer(bytes count: Int) -> UInt64 {
        (0..<count).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
    }

    /// `count` bytes (fewer at the end of the input).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = remaining.prefix(count)
        remaining = remaining.dropFirst(count)
        return Array(taken)
    }

    /// A length byte, then that many bytes.
    public mutating func field() -> [UInt8] { bytes(Int(byte())) }

    /// A field as text as D-Bus carries it: UTF-8 (invalid sequences repaired) without NUL.
    public mutating func text() -> String {
        String(decoding: field().filter { $0 != 0 }, as: UTF8.self)
    }

    /// A field as a valid D-Bus object path: `/`, or elements of `[A-Za-z0-9_]` joined by `/`.
    public mutating func objectPath() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_".utf8)
        var elements: [[UInt8]] = [[]]
        for byte in field() {
            let index = Int(byte) % (alphabet.count + 1)
            if index == alphabet.count { elements.append([]) } else { elements[elements.count - 1].append(alphabet[index]) }
        }
        let path = elements.filter { !$0.isEmpty }.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
        return "/" + path
    }
}

/// The length of a stream for a reader bounded at `limit` bytes, from three input bytes: mostly short
/// (under 8 KiB), else (both top bits set) within 8 KiB of the limit, where the reader's bound and its
/// 4 KiB reads meet. Long streams are the rarer ones: each costs the parse of a whole request.
public func streamLength(_ raw: UInt64, limit: Int) -> Int {
    raw & 0xC0_0000 == 0xC0_0000 ? max(0, limit - 8192) + Int(raw % 16385) : Int(raw % 8192)
}

/// `unit` repeated (the last copy cut) to `length` bytes; empty when `unit` is.
public func repeated(_ unit: [UInt8], toLength length: Int) -> [UInt8] {
    guard !unit.isEmpty else { return [] }
    var stream: [UInt8] = []
    stream.reserveCapacity(length)
    while stream.count < length { stream += unit.prefix(length - stream.count) }
    return stream
}

/// Whether two texts are the same scalars. `==` on Swift strings is canonical equivalence ("é" equals
/// "e\u{301}"), which would hide a decoder that changes the spelling of what it read.
public func sameScalars(_ left: some StringProtocol, _ right: some StringProtocol) -> Bool {
    left.unicodeScalars.elementsEqual(right.unicodeScalars)
}

/// An unlinked temporary file that a target rewrites with each input and hands to a reader of a
/// descriptor (a helper reading its stdin): reads of a regular file return whole chunks until the end,
/// as a pipe that the writer filled does, and writing it never blocks.
public struct ScratchFile: Sendable {
    public let descriptor: Int32

    public init() {
        var template = Array("/tmp/bv-fuzz-stdin-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { fatalError("mkstemp failed") }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        self.descriptor = descriptor
    }

    /// Replaces the file's contents with `bytes` and rewinds it; returns the descriptor to read.
    public func load(_ bytes: [UInt8]) -> Int32 {
        guard ftruncate(descriptor, 0) == 0,
            bytes.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count,
            lseek(descriptor, 0, SEEK_SET) == 0
        else { fatalError("cannot rewrite the scratch file") }
        return descriptor
    }
}
#endif
