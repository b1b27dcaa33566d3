/// Identifies the set of enrolled biometrics (a hash; never a template or finger image).
///
/// Apple: `LAContext.domainState.biometry.stateHash` (or `evaluatedPolicyDomainState`), hex-encoded and
/// tagged with its source (`bsh-…` / `pds-…`).
/// Linux: a hash of (user, device, sorted enrolled finger names).
public struct EnrollmentFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// Lowercase hex or another printable ASCII token without `;`, at most 128 characters.
    public let value: String

    public init?(_ value: String) {
        guard !value.isEmpty, value.utf8.count <= 128,
            value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") })
        else { return nil }
        self.value = value
    }

    public init(hashing bytes: some Sequence<UInt8>) {
        self.value = FNV1a.hex(of: bytes)
    }

    public var description: String { "EnrollmentFingerprint(\(value.prefix(8))…)" }
}

/// How a stored item is protected.
public enum ItemProtection: Hashable, Sendable {
    /// Readable without a prompt ("keychain" states).
    case none
    /// Readable only after an authentication that satisfies the policy ("biometrics" / "locked" states).
    case protected(ProtectionPolicy)

    public var policy: ProtectionPolicy? {
        switch self {
        case .none: nil
        case .protected(let policy): policy
        }
    }

    /// The protection as one byte, for binary formats (`VaultEnvelope`, the file store's item files).
    /// Stable: these numbers are on disk.
    public var byteCode: UInt8 {
        switch self {
        case .none: 0
        case .protected(.biometryCurrentSet): 1
        case .protected(.biometryAny): 2
        case .protected(.userPresence): 3
        case .protected(.devicePasscode): 4
        }
    }

    /// Parses ``byteCode``; `nil` for an unknown byte.
    public init?(byteCode: UInt8) {
        switch byteCode {
        case 0: self = .none
        case 1: self = .protected(.biometryCurrentSet)
        case 2: self = .protected(.biometryAny)
        case 3: self = .protected(.userPresence)
        case 4: self = .protected(.devicePasscode)
        default: return nil
        }
    }
}

/// The non-secret part of the stored envelope: format version, protection, policy and enrollment.
///
/// Stores that keep metadata beside the secret (Secret Service attributes, the Keychain's
/// `kSecAttrGeneric`) store ``attributeValue``; stores that keep one blob keep the header in it.
public struct ItemHeader: Hashable, Sendable {
    /// The format this version of the library writes.
    public static let currentFormatVersion: UInt8 = 1

    public var formatVersion: UInt8
    public var protection: ItemProtection
    /// Set for `.biometryCurrentSet` items: the enrollment the item is bound to.
    public var enrollment: EnrollmentFingerprint?

    public init(protection: ItemProtection, enrollment: EnrollmentFingerprint? = nil) {
        self.formatVersion = Self.currentFormatVersion
        self.protection = protection
        self.enrollment = enrollment
    }

    /// A compact text form, e.g. `bv1;none` or `bv1;biometryCurrentSet;3fa2…`.
    public var attributeValue: String {
        // Built directly: every Secret Service read searches by it, and `joined(separator:)` costs a
        // cold read a runtime conformance lookup on its critical path.
        let fields = "bv\(formatVersion);" + (protection.policy?.rawValue ?? "none")
        guard let enrollment else { return fields }
        return fields + ";" + enrollment.value
    }

    /// Parses ``attributeValue``. A future or unknown format is `corruptedItem`, never guessed at.
    public init(attributeValue: String) throws(VaultError) {
        let fields = attributeValue.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 2 || fields.count == 3, fields[0].hasPrefix("bv"),
            let version = UInt8(fields[0].dropFirst(2))
        else { throw VaultError(.corruptedItem, underlying: .message("unrecognised item header")) }
        guard version == Self.currentFormatVersion else {
            throw VaultError(.corruptedItem, underlying: .message("unsupported item format version \(version)"))
        }
        let protection: ItemProtection
        if fields[1] == "none" {
            protection = .none
        } else if let policy = ProtectionPolicy(rawValue: fields[1]) {
            protection = .protected(policy)
        } else {
            throw VaultError(.corruptedItem, underlying: .message("unknown protection in item header"))
        }
        var enrollment: EnrollmentFingerprint?
        if fields.count == 3 {
            guard let parsed = EnrollmentFingerprint(fields[2]) else {
                throw VaultError(.corruptedItem, underlying: .message("bad enrollment in item header"))
            }
            enrollment = parsed
        }
        self.formatVersion = version
        self.protection = protection
        self.enrollment = enrollment
    }
}

/// A stored item as a backend hands it to the vault.
public struct StoredItem: Sendable, Equatable {
    public var header: ItemHeader
    /// The encoded credentials. `nil` when the backend holds them behind an OS access control that
    /// needs an ``Authorization`` (the Apple Keychain); file and Secret Service stores always fill it.
    public var payload: SecretBytes?

    public init(header: ItemHeader, payload: SecretBytes?) {
        self.header = header
        self.payload = payload
    }
}

/// 64-bit FNV-1a, for identifiers only (enrollment sets). Not a security primitive.
package enum FNV1a {
    package static func hash(of bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    package static func hex(of bytes: some Sequence<UInt8>) -> String {
        let digits = String(hash(of: bytes), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
