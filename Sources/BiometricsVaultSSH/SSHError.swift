/// Why SSH bytes (a key, a signature, an agent message) were refused, or why a key could not be made or used.
///
/// The message says what is wrong in fixed words, lengths and numbers. It never repeats secret bytes, and
/// names taken from the input (a key type, an extension) appear only when they are short printable ASCII
/// (``quoted(_:)``), so a message can be logged and shown as it is.
package struct SSHError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }

    /// A name read from the input, fit for a message: in quotes when it is at most 64 printable ASCII
    /// characters, else only its length (it could be anything, even a secret sent in the wrong field).
    package static func quoted(_ name: some Collection<UInt8>) -> String {
        if name.count <= 64, name.allSatisfy({ (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\"") }) {
            return "\"\(String(decoding: name, as: UTF8.self))\""
        }
        return "(a name of \(name.count) bytes)"
    }

    package static func quoted(_ name: String) -> String { quoted(Array(name.utf8)) }
}
