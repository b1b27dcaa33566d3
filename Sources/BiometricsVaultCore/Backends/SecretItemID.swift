/// Names one stored item: a service namespace and a key within it.
///
/// Both parts are validated on creation: non-empty, at most ``VaultLimits/maximumKeyLength`` UTF-8 bytes,
/// no NUL or other control characters, no `/` or `\`, and not `.` or `..`. Backends may therefore use
/// them as attribute values freely, but must still never use them as raw path components.
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
            if scalar.value < 0x20 || scalar.value == 0x7F { throw reject("contains a control character") }
            if scalar == "/" || scalar == "\\" { throw reject("contains a path separator") }
        }
    }
}
