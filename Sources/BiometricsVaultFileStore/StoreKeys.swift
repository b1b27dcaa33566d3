import BiometricsVaultCore
import Crypto
import Foundation
import _CryptoExtras

/// The keys of one store, derived from its random 256-bit master key with HKDF-SHA256:
/// one AES-256-GCM key for item files, one HMAC key for file and directory names.
///
/// @unchecked Sendable: every stored property is a `let` holding a swift-crypto value type that is never
/// mutated after `init`. Uses copy them (`var mac = nameMAC`) and mutate only the local copy; swift-crypto's
/// key bytes and digest contexts are copy-on-write (`isKnownUniquelyReferenced` before any write), so a
/// copy never writes the shared storage, and concurrent reads of immutable storage cannot race.
final class StoreKeys: @unchecked Sendable {
    let itemKey: SymmetricKey
    /// HMAC-SHA256 already keyed with the name key: keying costs more than hashing a short name.
    private let nameMAC: HMAC<SHA256>

    init(master: SymmetricKey) {
        func derive(_ label: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: master, salt: Array("biometrics-vault file store".utf8),
                info: Array(label.utf8), outputByteCount: 32)
        }
        itemKey = derive("item encryption v1")
        nameMAC = HMAC<SHA256>(key: derive("file names v1"))
    }

    /// The directory name of a service: a keyed hash, so service names never become path components and
    /// cannot be guessed from a directory listing.
    func serviceDirectoryName(_ service: String) -> String {
        Hex.encode(mac(Array("service\0".utf8) + Array(service.utf8)))
    }

    /// The 32-byte identifier of an item slot: its file name (hex) and part of its associated data.
    func itemDigest(service: String, key: String) -> [UInt8] {
        let serviceBytes = Array(service.utf8)
        let count = UInt32(serviceBytes.count)
        let length: [UInt8] = [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        return mac(Array("item\0".utf8) + length + serviceBytes + Array(key.utf8))
    }

    private func mac(_ message: [UInt8]) -> [UInt8] {
        var mac = nameMAC
        mac.update(data: message)
        return Array(mac.finalize())
    }
}

/// The store's key file, `master.key` in the store root (0600), format version 1.
///
/// ```
/// "BVFK"  version:u8  kind:u8  ...
/// kind 0, key file:   master[32]  crc32:u32                      (the file *is* the key)
/// kind 1, scrypt:     log2N:u8  r:u8  p:u8  salt[16]  nonce[12]  wrappedMaster[32]  tag[16]
///                     (AES-256-GCM under scrypt(passphrase, salt); associated data = the bytes before nonce)
/// kind 2, sealed:     mechanism:u8  flags:u8  length:u16  blob[length]  crc32:u32   (MasterKeySealer.swift)
/// ```
enum KeyFile {
    static let fileName = "master.key"
    static let magic: [UInt8] = Array("BVFK".utf8)
    static let formatVersion: UInt8 = 1
    static let kindKeyFile: UInt8 = 0
    static let kindScrypt: UInt8 = 1

    /// scrypt cost for new stores: N = 2^15, r = 8, p = 1 (32 MiB, on the order of 0.1 s in release).
    static let newScryptCost = ScryptCost(log2N: 15, blockSize: 8, parallelism: 1)

    struct ScryptCost: Equatable {
        var log2N: UInt8
        var blockSize: UInt8
        var parallelism: UInt8

        /// Bounds accepted when reading a key file, so a damaged or hostile file cannot ask for gigabytes.
        var isReasonable: Bool { (10...20).contains(log2N) && (1...16).contains(blockSize) && (1...4).contains(parallelism) }
    }

    static func corrupt(_ why: String) -> VaultError {
        VaultError(.corruptedItem, underlying: .message(why))
    }

    /// Loads the master key; `nil` when the store has no key file yet.
    static func load(root: String, source: EncryptedFileStore.KeySource) throws -> StoreKeys? {
        let bytes: [UInt8]
        switch try FileSystem.readFile(root + "/" + fileName, limit: 4096) {
        case .missing: return nil
        case .notAFile, .tooLarge: throw corrupt("the store key file is not a key file")
        case .contents(let contents): bytes = contents
        }
        return StoreKeys(master: try decodeMaster(bytes, source: source))
    }

    /// The master key in a key file's `bytes`, opened with `source`.
    static func decodeMaster(_ bytes: [UInt8], source: EncryptedFileStore.KeySource) throws -> SymmetricKey {
        guard bytes.count >= 6, Array(bytes[0..<4]) == magic else { throw corrupt("the store key file is damaged") }
        guard bytes[4] == formatVersion else { throw corrupt("unsupported store key file version \(bytes[4])") }
        switch (bytes[5], source) {
        case (kindKeyFile, .keyFile):
            guard bytes.count == 6 + 32 + 4 else { throw corrupt("the store key file is damaged") }
            let stored = UInt32(bytes[38]) << 24 | UInt32(bytes[39]) << 16 | UInt32(bytes[40]) << 8 | UInt32(bytes[41])
            guard CRC32.checksum(bytes[0..<38]) == stored else { throw corrupt("the store key file is damaged") }
            return SymmetricKey(data: bytes[6..<38])
        case (kindScrypt, .passphrase(let passphrase)):
            return try unwrap(bytes, passphrase: passphrase)
        case (kindSealed, .sealed(let sealer)):
            return try decodeSealed(bytes, sealer: sealer)
        case (kindKeyFile, .passphrase):
            throw VaultError(.authenticationFailed, underlying: .message("this store is protected by its key file, not by a passphrase"))
        case (kindScrypt, .keyFile):
            throw VaultError(.storeLocked, underlying: .message("this store is protected by a passphrase; open it with .passphrase"))
        case (kindKeyFile, .sealed), (kindScrypt, .sealed):
            throw VaultError(.storeLocked, underlying: .message("this store's key is not sealed; open it with its key file or passphrase"))
        case (kindSealed, .keyFile), (kindSealed, .passphrase):
            throw VaultError(.storeLocked, underlying: .message("this store's key is sealed by the TPM; open it with .sealed"))
        default:
            throw corrupt("unknown store key file kind")
        }
    }

    /// Creates a new random master key and its key file. If another process created one meanwhile, loads
    /// that one instead (first creator wins, see ``FileSystem/createDurablyIfAbsent``).
    static func create(root: String, source: EncryptedFileStore.KeySource) throws -> StoreKeys {
        let master = SymmetricKey(size: .bits256)
        var file = magic + [formatVersion]
        switch source {
        case .keyFile:
            file.append(kindKeyFile)
            master.withUnsafeBytes { file += $0 }
            let crc = CRC32.checksum(file)
            file += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        case .passphrase(let passphrase):
            let cost = newScryptCost
            file += [kindScrypt, cost.log2N, cost.blockSize, cost.parallelism]
            let salt = SymmetricKey(size: SymmetricKeySize(bitCount: 128)).withUnsafeBytes { Array($0) }
            file += salt
            let wrappingKey = try derive(passphrase: passphrase, salt: salt, cost: cost)
            let masterBytes = master.withUnsafeBytes { Array($0) }
            let sealed: AES.GCM.SealedBox
            do {
                sealed = try AES.GCM.seal(masterBytes, using: wrappingKey, authenticating: file)
            } catch {
                throw VaultError(.storeUnavailable, underlying: .message("AES-GCM seal failed"))
            }
            file += sealed.nonce
            file += sealed.ciphertext
            file += sealed.tag
        case .sealed(let sealer):
            file = try encodeSealed(master: master, sealer: sealer)
        }
        let temporaryName = ".master.key." + Hex.encode(SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { Array($0) })
        defer { for index in file.indices { file[index] = 0 } }
        let created = try FileSystem.createDurablyIfAbsent(directory: root, temporaryName: temporaryName, finalName: fileName, bytes: file)
        if created { return StoreKeys(master: master) }
        guard let existing = try load(root: root, source: source) else {
            throw VaultError(.storeUnavailable, underlying: .message("the store key file vanished while being created"))
        }
        return existing
    }

    private static func unwrap(_ bytes: [UInt8], passphrase: SecretBytes) throws -> SymmetricKey {
        let prefixCount = 6 + 3 + 16
        guard bytes.count == prefixCount + 12 + 32 + 16 else { throw corrupt("the store key file is damaged") }
        let cost = ScryptCost(log2N: bytes[6], blockSize: bytes[7], parallelism: bytes[8])
        guard cost.isReasonable else { throw corrupt("the store key file has unreasonable scrypt parameters") }
        let salt = Array(bytes[9..<prefixCount])
        let wrappingKey = try derive(passphrase: passphrase, salt: salt, cost: cost)
        var master: Data
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: bytes[prefixCount..<(prefixCount + 12)]),
                ciphertext: bytes[(prefixCount + 12)..<(prefixCount + 44)],
                tag: bytes[(prefixCount + 44)...])
            master = try AES.GCM.open(box, using: wrappingKey, authenticating: bytes[0..<prefixCount])
        } catch {
            throw VaultError(.authenticationFailed, underlying: .message("wrong passphrase for this store"))
        }
        defer { master.resetBytes(in: 0..<master.count) }
        return SymmetricKey(data: master)
    }

    static func derive(passphrase: SecretBytes, salt: [UInt8], cost: ScryptCost) throws -> SymmetricKey {
        do {
            return try passphrase.withUnsafeBytes { raw in
                try KDF.Scrypt.deriveKey(
                    from: raw, salt: salt, outputByteCount: 32, rounds: 1 << Int(cost.log2N),
                    blockSize: Int(cost.blockSize), parallelism: Int(cost.parallelism))
            }
        } catch {
            throw VaultError(.storeUnavailable, underlying: .message("scrypt key derivation failed"))
        }
    }
}
