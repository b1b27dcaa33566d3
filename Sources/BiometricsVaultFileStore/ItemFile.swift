import BiometricsVaultCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The on-disk form of one item, format version 1.
///
/// ```
/// "BVFI"  version:u8  protection:u8  nonce[12]  ciphertext[...]  tag[16]
/// plaintext = keyLength:u16be  key (UTF-8)  VaultEnvelope
/// associated data = the 6 header bytes  +  item digest[32]
/// ```
/// The item digest is `HMAC-SHA256(nameKey, service, key)` (see ``StoreKeys/itemDigest(service:key:)``),
/// which is also the file name. Binding it as associated data binds the format version, the service and
/// the key; the header byte binds the protection level. A file copied, swapped or renamed to another
/// item's name, a header edited from "protected" to "none", or a file from another store therefore fails
/// authentication, and is reported as `corruptedItem`, never decrypted into the wrong slot.
///
/// The key name is inside the ciphertext so that ``EncryptedFileStore/keys(service:)`` can list real keys
/// without ever writing them in clear.
enum ItemFile {
    static let magic: [UInt8] = Array("BVFI".utf8)
    static let formatVersion: UInt8 = 1
    static let headerCount = 6
    static let nonceCount = 12
    static let tagCount = 16
    /// Header + nonce + tag + key length + the longest key + the largest envelope, with room to spare.
    static let maximumFileSize = headerCount + nonceCount + tagCount + 2 + VaultLimits.maximumKeyLength
        + VaultLimits.maximumCredentialsSize + 512

    static func corrupt(_ why: String) -> VaultError {
        VaultError(.corruptedItem, underlying: .message(why))
    }

    /// Encrypts `item` for the slot named by `digest`.
    static func seal(_ item: StoredItem, key: String, digest: [UInt8], using itemKey: SymmetricKey) throws -> [UInt8] {
        let envelope = VaultEnvelope.encode(item)
        let keyBytes = Array(key.utf8)
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(2 + keyBytes.count + envelope.count)
        plaintext.append(UInt8(keyBytes.count >> 8))
        plaintext.append(UInt8(keyBytes.count & 0xFF))
        plaintext += keyBytes
        envelope.withUnsafeBytes { plaintext += $0 }
        defer { zero(&plaintext) }

        let header = magic + [formatVersion, item.header.protection.byteCode]
        let sealed: AES.GCM.SealedBox
        do {
            sealed = try AES.GCM.seal(plaintext, using: itemKey, authenticating: header + digest)
        } catch {
            throw VaultError(.storeUnavailable, underlying: .message("AES-GCM seal failed"))
        }
        var file = header
        file.reserveCapacity(headerCount + nonceCount + sealed.ciphertext.count + tagCount)
        file += sealed.nonce
        file += sealed.ciphertext
        file += sealed.tag
        return file
    }

    /// What a file holds once it has been authenticated.
    struct Opened {
        var key: String
        var item: StoredItem
    }

    /// Authenticates and decrypts a file found in the slot named by `digest`.
    static func open(_ file: [UInt8], digest: [UInt8], using itemKey: SymmetricKey) throws(VaultError) -> Opened {
        guard file.count >= headerCount + nonceCount + tagCount else { throw corrupt("item file truncated") }
        guard Array(file[0..<4]) == magic else { throw corrupt("not a BiometricsVault item file") }
        guard file[4] == formatVersion else { throw corrupt("unsupported item file format version \(file[4])") }
        guard let protection = ItemProtection(byteCode: file[5]) else {
            throw corrupt("unknown protection level in item file")
        }
        var plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: file[headerCount..<(headerCount + nonceCount)]),
                ciphertext: file[(headerCount + nonceCount)..<(file.count - tagCount)],
                tag: file[(file.count - tagCount)...])
            plaintext = try AES.GCM.open(box, using: itemKey, authenticating: file[0..<headerCount] + digest)
        } catch {
            throw corrupt("item file failed authentication (damaged, moved, or from another store)")
        }
        defer { plaintext.resetBytes(in: 0..<plaintext.count) }

        let result: Result<Opened, VaultError> = plaintext.withUnsafeBytes { raw in
            do throws(VaultError) {
                guard raw.count >= 2 else { throw corrupt("item plaintext truncated") }
                let keyCount = Int(raw[0]) << 8 | Int(raw[1])
                guard raw.count >= 2 + keyCount else { throw corrupt("item plaintext truncated") }
                let key = String(decoding: raw[2..<(2 + keyCount)], as: UTF8.self)
                let item = try VaultEnvelope.decode(UnsafeRawBufferPointer(rebasing: raw[(2 + keyCount)...]))
                guard item.header.protection == protection else {
                    throw corrupt("item protection does not match its file header")
                }
                return .success(Opened(key: key, item: item))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func zero(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}

enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Lowercase hex only (what ``encode(_:)`` writes); anything else is `nil`.
    static func decode(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
