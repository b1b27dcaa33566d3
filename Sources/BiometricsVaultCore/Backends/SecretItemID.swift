#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Names one stored item: a service namespace and a key within it.
///
/// Both parts are validated on creation: non-empty, at most ``VaultLimits/maximumKeyLength`` UTF-8 bytes,
/// no NUL or other control characters (C0, DEL, C1), no line or paragraph separator (U+2028/2029), no
/// bidirectional formatting character (U+202A-202E, U+2066-2069, U+200E/200F, U+061C), no `/` or `\`,
/// not `.` or `..`, and in Unicode Normalization Form C. Backends may therefore use them as attribute
/// values freely, but must still never use them as raw path components.
///
/// Why NFC: stores compare keys byte for byte, so `café` spelled precomposed and decomposed would be two
/// items that look the same everywhere they are shown. Only the composed spelling (what keyboards and
/// most text produce) is accepted; the other is `invalidKey`.
public struct SecretItemID: Hashable, Sendable, CustomStringConvertible {
    public let service: String
    public let key: String

    public init(service: String, key: String) throws(VaultError) {
        try Self.validate(service, what: "service")
        try Self.validate(key, what: "key")
        self.service = service
        self.key = key
    }

    /// Only for carrying an invalid key to the point where an operation re-validates it and throws.
    init(uncheckedService service: String, key: String) {
        self.service = service
        self.key = key
    }

    public var description: String { "\(service)/\(key)" }

    static func validate(_ value: String, what: String) throws(VaultError) {
        func reject(_ why: String) -> VaultError {
            VaultError(.invalidKey, underlying: .message("\(what) \(why)"))
        }
        if value.isEmpty { throw reject("is empty") }
        if value.utf8.count > VaultLimits.maximumKeyLength {
            throw reject("is longer than \(VaultLimits.maximumKeyLength) bytes")
        }
        if value == "." || value == ".." { throw reject("is a path component") }
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F, 0x80...0x9F: throw reject("contains a control character")
            case 0x2028, 0x2029: throw reject("contains a line or paragraph separator")
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                throw reject("contains a bidirectional formatting character")
            case 0x2F, 0x5C: throw reject("contains a path separator")
            default: break
            }
        }
        guard value.isInNormalizationFormC else {
            throw reject("is not in Unicode Normalization Form C (NFC): the same text spelled with combining characters")
        }
    }
}
