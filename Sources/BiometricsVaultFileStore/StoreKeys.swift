import BiometricsVaultCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import _CryptoExtras

/// The keys of one store, derived from its random 256-bit master key with HKDF-SHA256:
/// one AES-256-GCM key for item files, one HMAC key for file and directory names.
///
/// Sendable without `@unchecked`: both properties are `let`s of swift-crypto types that are `Sendable`
/// since swift-crypto 4; uses copy them (`var mac = nameMAC`) and mutate only the copy.
final class StoreKeys: Sendable {
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

    /// The key check value of a service directory: a keyed hash of its name under a label no other use
    /// shares. Another key (a `master.key` copied from another store) gives another value.
    func checkValue(directoryName: String) -> [UInt8] {
        mac(Array("key check v1\0".utf8) + Array(directoryName.utf8))
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
        guard let bytes = try readBytes(root: root) else { return nil }
        return StoreKeys(master: try decodeMaster(bytes, source: source))
    }

    /// The key file's bytes; `nil` when there is none. Anything but a regular file (a FIFO planted to
    /// hang every command, a device, a symlink) is `storeUnavailable`, not waited on.
    static func readBytes(root: String) throws(VaultError) -> [UInt8]? {
        let path = root + "/" + fileName
        switch try FileSystem.readFile(path, limit: 4096) {
        case .missing: return nil
        case .notAFile:
            throw VaultError(.storeUnavailable, underlying: .message("refusing \(path): it is not a regular file (a FIFO, device, symlink or directory)"))
        case .tooLarge: throw corrupt("the store key file is not a key file")
        case .contents(let contents): return contents
        }
    }

    /// The master key in a key file's `bytes`, opened with `source`.
    static func decodeMaster(_ bytes: [UInt8], source: EncryptedFileStore.KeySource) throws -> SymmetricKey {
        guard bytes.count >= 6, Array(bytes[0..<4]) == magic else { throw corrupt("the store key file is damaged") }
        guard bytes[4] == formatVersion else { throw corrupt("unsupported store key file version \(bytes[4])") }
        switch (bytes[5], source) {
        case (_, .unlocked(let unlocked)):
            return try decodeUnlocked(bytes, unlocked)
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

    /// Creates a new random master key and its key file, under the root's lock. If another process
    /// created one meanwhile, loads that one instead. Spare keys that a creator killed half-way left
    /// behind (`.master.key.<hex>`, complete keys) are removed first: no key material outlives its use.
    static func create(root: String, source: EncryptedFileStore.KeySource) throws -> StoreKeys {
        let outcome: Result<StoreKeys, any Error> = try FileSystem.withExclusiveLock(root + "/.lock") { () throws(VaultError) in
            do {
                if let existing = try load(root: root, source: source) { return .success(existing) }
                for entry in try FileSystem.directoryEntries(root) ?? [] where entry.hasPrefix(temporaryPrefix) {
                    try FileSystem.removeFile(root + "/" + entry)
                }
                return .success(try createLocked(root: root, source: source))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    static let temporaryPrefix = ".master.key."

    /// Removes spare keys (`.master.key.<hex>`) among the root's `entries`: a creator killed after
    /// publishing `master.key` but before removing its temporary file leaves a complete copy of the key.
    /// Under the root's lock, so a creation in progress is never disturbed.
    static func removeSpareKeys(root: String, among entries: [String]) throws(VaultError) {
        guard entries.contains(where: { $0.hasPrefix(temporaryPrefix) }) else { return }
        try FileSystem.withExclusiveLock(root + "/.lock") { () throws(VaultError) in
            for entry in try FileSystem.directoryEntries(root) ?? [] where entry.hasPrefix(temporaryPrefix) {
                try FileSystem.removeFile(root + "/" + entry)
            }
        }
    }

    private static func createLocked(root: String, source: EncryptedFileStore.KeySource) throws -> StoreKeys {
        let master = SymmetricKey(size: .bits256)
        var file = try encode(master: master, source: source)
        let temporaryName = temporaryPrefix + Hex.encode(SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { Array($0) })
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

/// The key check value of each service directory (`.check`): proof, beside the data, that the store's
/// key is the key the directory's items were written with. Without it, a `master.key` copied in from
/// another store (a valid key, just not this store's) would hash every service name to a directory that
/// does not exist, and the store would look empty while its items sit there orphaned.
enum KeyCheck {
    static let fileName = ".check"

    static func mismatch(_ directory: String) -> VaultError {
        VaultError(
            .corruptedItem,
            underlying: .message("the store key does not match the data in \(directory): master.key was replaced or copied from another store"))
    }

    /// Checks every service directory of the store against `keys` (and removes spare keys left by a
    /// killed creator, see ``KeyFile/removeSpareKeys(root:among:)``). A directory written before check
    /// values existed (or whose creator died before writing one) is checked by authenticating one of its
    /// item files instead; one with no items proves nothing either way and passes. Returns how many
    /// directories proved `keys` right (0 for a store with no data yet).
    @discardableResult
    static func verify(root: String, keys: StoreKeys) throws(VaultError) -> Int {
        let entries = try FileSystem.directoryEntries(root) ?? []
        try KeyFile.removeSpareKeys(root: root, among: entries)
        var proven = 0
        for entry in entries where entry.count == 64 {
            guard Hex.decode(Substring(entry))?.count == 32 else { continue }
            let directory = root + "/" + entry
            guard let status = try FileSystem.linkStatus(directory), status.isDirectory else { continue }
            switch try FileSystem.readFile(directory + "/" + fileName, limit: 64) {
            case .contents(let stored):
                guard stored == keys.checkValue(directoryName: entry) else { throw mismatch(directory) }
                proven += 1
            case .notAFile, .tooLarge:
                throw mismatch(directory)
            case .missing:
                if try verifyByItem(directory: directory, keys: keys) { proven += 1 }
            }
        }
        return proven
    }

    /// Whether an item of `directory` opened with `keys` (`false`: it has none); throws when one does not.
    private static func verifyByItem(directory: String, keys: StoreKeys) throws(VaultError) -> Bool {
        let suffix = EncryptedFileStore.itemSuffix
        for entry in try FileSystem.directoryEntries(directory) ?? [] where !entry.hasPrefix(".") && entry.hasSuffix(suffix) {
            guard let digest = Hex.decode(entry.dropLast(suffix.count)), digest.count == 32 else { continue }
            guard case .contents(let bytes) = try FileSystem.readFile(directory + "/" + entry, limit: ItemFile.maximumFileSize) else {
                continue
            }
            do {
                _ = try ItemFile.open(bytes, digest: digest, using: keys.itemKey)
                return true
            } catch {
                throw mismatch(directory)
            }
        }
        return false
    }

    /// Writes the directory's check value if it has none (a new directory, or one from before check
    /// values), under the directory's lock.
    static func ensure(directory: String, keys: StoreKeys) throws(VaultError) {
        let name = String(directory[directory.index(after: directory.lastIndex(of: "/") ?? directory.startIndex)...])
        guard try FileSystem.linkStatus(directory + "/" + fileName) == nil else { return }
        try FileSystem.withExclusiveLock(directory + "/" + EncryptedFileStore.lockName) { () throws(VaultError) in
            guard try FileSystem.linkStatus(directory + "/" + fileName) == nil else { return }
            try FileSystem.replaceDurably(
                directory: directory, temporaryName: EncryptedFileStore.pendingName, finalName: fileName,
                bytes: keys.checkValue(directoryName: name))
        }
    }
}
