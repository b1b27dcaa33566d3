import BiometricsVaultCore
import Crypto

/// How the credential helpers (git, docker) turn what a client names (protocol, host, user, path, server
/// URL) into vault keys that stay readable in `list` and always pass the vault's key rules.
///
/// A part is percent-encoded (UTF-8 bytes, `%XX`): `%`, the separators `:`, `@`, the path separators
/// `/`, `\`, and every scalar the vault refuses in a key (C0, DEL, C1, U+2028/2029, the bidi controls).
/// A part that is still not in Unicode Normalization Form C gets every non-ASCII scalar encoded too.
/// Decoding gives back the exact scalars, so two different parts never share an encoding; parts that were
/// valid before this encoding existed (only `%:@/\` and C0/DEL encoded) are encoded as they were, so
/// their items stay readable.
///
/// A key longer than the vault allows gets its longest parts replaced, one at a time, by their *digest
/// form*: up to 40 bytes of the part (every non-ASCII scalar encoded), `%~`, and the SHA-256 of the part
/// in hex. `%~` never occurs in a percent-encoding (`%` is always followed by two hex digits there), so a
/// digest form never equals an encoded part.
package enum CredentialHelperKey {
    package static let digestMarker = "%~"
    package static let digestPrefixLimit = 40

    /// `part` percent-encoded (see the type's documentation).
    package static func encode(_ part: String) -> String {
        let encoded = encode(part, everyNonASCII: false)
        // The vault's own rules decide (NFC included); "p" makes an empty part or "." a valid probe.
        if encoded.utf8.count < VaultLimits.maximumKeyLength, (try? SecretItemID(service: "p", key: "p" + encoded)) == nil {
            return encode(part, everyNonASCII: true)
        }
        return encoded
    }

    /// The digest form of `part`: a readable ASCII prefix, the marker and the part's SHA-256.
    package static func digestForm(_ part: String) -> String {
        var prefix = ""
        for scalar in part.unicodeScalars {
            let piece = encode(String(scalar), everyNonASCII: true)
            guard prefix.utf8.count + piece.utf8.count <= digestPrefixLimit else { break }
            prefix += piece
        }
        let digest = SHA256.hash(data: Array(part.utf8))
        return prefix + digestMarker + digest.map { hex($0, uppercase: false) }.joined()
    }

    /// Whether a key part (as found in a stored key) names `value`, in either form.
    package static func part(_ keyPart: Substring, names value: String) -> Bool {
        if keyPart.utf8.elementsEqual(encode(value).utf8) { return true }
        return containsDigestMarker(keyPart) && keyPart.utf8.elementsEqual(digestForm(value).utf8)
    }

    /// `prefix` followed by `parts` (encoded) joined by their separators (each part's separator comes
    /// before it); the longest parts replaced by their digest form until the key fits.
    package static func key(prefix: String, parts: [(separator: String, value: String)]) -> String {
        var encoded = parts.map { encode($0.value) }
        func assembled() -> String {
            zip(parts, encoded).reduce(prefix) { $0 + $1.0.separator + $1.1 }
        }
        var key = assembled()
        var digested = Set<Int>()
        while key.utf8.count > VaultLimits.maximumKeyLength {
            // The longest part not yet digested (the first of equal ones).
            guard
                let longest = encoded.indices.filter({ !digested.contains($0) })
                    .max(by: { encoded[$0].utf8.count < encoded[$1].utf8.count || (encoded[$0].utf8.count == encoded[$1].utf8.count && $0 > $1) })
            else { break }
            encoded[longest] = digestForm(parts[longest].value)
            digested.insert(longest)
            key = assembled()
        }
        return key
    }

    /// What follows `prefix` in `key`, or `nil` when `key` does not start with it. Keys are read as bytes
    /// (here and in ``split(_:at:maxSplits:)``), never as Characters: a part that starts with a combining
    /// mark (valid in a key, so not encoded) is one Character with the separator before it.
    package static func rest(of key: String, after prefix: String) -> Substring? {
        guard key.utf8.starts(with: prefix.utf8) else { return nil }
        return Substring(key.utf8.dropFirst(prefix.utf8.count))
    }

    /// `text` split at each `separator` (ASCII, which no encoded part holds), empty pieces kept.
    static func split(_ text: Substring, at separator: Unicode.Scalar, maxSplits: Int = .max) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: separator), maxSplits: maxSplits, omittingEmptySubsequences: false).map(Substring.init)
    }

    /// The part an encoded key part spells; `nil` for a digest form or an invalid encoding.
    package static func decode(_ keyPart: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = keyPart.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func encode(_ part: String, everyNonASCII: Bool) -> String {
        var encoded = ""
        for scalar in part.unicodeScalars {
            if needsEncoding(scalar) || (everyNonASCII && !scalar.isASCII) {
                for byte in String(scalar).utf8 { encoded += "%" + hex(byte, uppercase: true) }
            } else {
                encoded.unicodeScalars.append(scalar)
            }
        }
        return encoded
    }

    /// `byte` as two hexadecimal digits.
    private static func hex(_ byte: UInt8, uppercase: Bool) -> String {
        let text = String(byte, radix: 16, uppercase: uppercase)
        return byte < 0x10 ? "0" + text : text
    }

    /// Whether `keyPart` holds ``digestMarker`` (compared byte by byte).
    private static func containsDigestMarker(_ keyPart: Substring) -> Bool {
        let marker = digestMarker.utf8
        var rest = keyPart.utf8[...]
        while !rest.isEmpty {
            if rest.starts(with: marker) { return true }
            rest = rest.dropFirst()
        }
        return false
    }

    private static func needsEncoding(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F, 0x80...0x9F: true
        case 0x2028, 0x2029: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
        case 0x25, 0x3A, 0x40, 0x2F, 0x5C: true  // % : @ / \
        default: false
        }
    }
}
