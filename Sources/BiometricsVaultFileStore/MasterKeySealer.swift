import BiometricsVaultCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Something outside the file store that wraps its master key, such as a TPM
/// (``EncryptedFileStore/KeySource/sealed(_:)``). The file store keeps the blob in `master.key` (kind 2)
/// and never sees how it was made; the sealer decides what unsealing needs (a PIN, the same machine).
public protocol MasterKeySealer: Sendable {
    /// One byte naming the mechanism in the key file (1 = TPM 2.0).
    var mechanism: UInt8 { get }
    /// Whether unsealing needs a PIN (recorded in the key file, so later commands know to ask).
    var usesPIN: Bool { get }
    /// Wraps the 32-byte master key; the blob must not reveal it.
    func seal(_ masterKey: SecretBytes) throws -> [UInt8]
    /// Unwraps a blob from ``seal(_:)``. Throws `authenticationFailed` for a wrong PIN,
    /// `storeUnavailable` when the mechanism cannot be reached (nothing is changed on disk).
    func unseal(_ blob: [UInt8]) throws -> SecretBytes
}

/// What protects a store's master key, as recorded in its key file (read without unsealing anything).
public enum StoredKeyProtection: Equatable, Sendable {
    case keyFile
    case passphrase
    /// Sealed by a ``MasterKeySealer`` (mechanism 1 is the TPM), with or without a PIN.
    case sealed(mechanism: UInt8, usesPIN: Bool)
}

extension EncryptedFileStore {
    /// What protects the store in `directory` (default: ``defaultDirectory()``); `nil` when it has no key
    /// file yet. Reads only the key file's header.
    ///
    /// - Throws: `corruptedItem` for a damaged key file; `storeUnavailable` for I/O errors.
    ///
    /// Also removes what an interrupted ``changeKeySource(directory:from:to:)`` left beside the key file
    /// (`.master.key.<random>`): a `key unseal` killed before its rename leaves the plain key there, next
    /// to a store that is still sealed.
    public static func keyProtection(directory: URL? = nil) throws -> StoredKeyProtection? {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        guard let bytes = try KeyFile.readBytes(root: root) else { return nil }
        let protection = try KeyFile.protection(of: bytes)
        if protection != .keyFile { try KeyFile.removeSpareKeys(root: root, among: FileSystem.directoryEntries(root) ?? []) }
        return protection
    }

    /// Re-wraps the store's master key under `newSource` (the items stay as they are: same master key).
    ///
    /// Atomic: the new key file is built and checked first (for a sealer: sealed, then unsealed again and
    /// compared), written beside the old one, made durable and renamed over it. A process killed at any
    /// point leaves either the old or the new key file, and both open the store.
    ///
    /// - Throws: what opening the store with `currentSource` throws (wrong passphrase or PIN, no TPM, ...);
    ///   `itemNotFound` when there is no store yet; then nothing is changed.
    public static func changeKeySource(directory: URL? = nil, from currentSource: KeySource, to newSource: KeySource) throws {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        try StoreLocation.validate(root)
        guard try FileSystem.status(root) != nil else {
            throw VaultError(.itemNotFound, underlying: .message("there is no file store at \(root) yet"))
        }
        // Under the root's lock, like key creation: two changes (or a change and a creation) never
        // interleave, and the spare-key cleanup never removes the temporary file of a change in progress.
        let outcome: Result<Void, any Error> = try FileSystem.withExclusiveLock(root + "/.lock") { () throws(VaultError) in
            do {
                try changeKeySourceLocked(root: root, from: currentSource, to: newSource)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
    }

    private static func changeKeySourceLocked(root: String, from currentSource: KeySource, to newSource: KeySource) throws {
        guard let bytes = try KeyFile.readBytes(root: root) else {
            throw VaultError(.itemNotFound, underlying: .message("there is no file store at \(root) yet"))
        }
        for entry in try FileSystem.directoryEntries(root) ?? [] where entry.hasPrefix(KeyFile.temporaryPrefix) {
            try FileSystem.removeFile(root + "/" + entry)
        }
        let master = try KeyFile.decodeMaster(bytes, source: currentSource)
        var encoded = try KeyFile.encode(master: master, source: newSource)
        defer { for index in encoded.indices { encoded[index] = 0 } }
        // Verify before anything on disk changes: a sealed copy that does not unseal to the same key
        // (wrong TPM, broken sealer) must not replace a working key file.
        let check = try KeyFile.decodeMaster(encoded, source: newSource)
        guard check == master else {
            throw VaultError(.storeUnavailable, underlying: .message("the re-wrapped store key did not open to the same key; nothing was changed"))
        }
        let temporaryName = KeyFile.temporaryPrefix + Hex.encode(SymmetricKey(size: SymmetricKeySize(bitCount: 64)).withUnsafeBytes { Array($0) })
        try FileSystem.replaceDurably(directory: root, temporaryName: temporaryName, finalName: KeyFile.fileName, bytes: encoded)
    }
}

extension KeyFile {
    static let kindSealed: UInt8 = 2

    /// The protection a key file records (its kind, and for kind 2 the mechanism and PIN flag).
    static func protection(of bytes: [UInt8]) throws -> StoredKeyProtection {
        guard bytes.count >= 6, Array(bytes[0..<4]) == magic else { throw corrupt("the store key file is damaged") }
        guard bytes[4] == formatVersion else { throw corrupt("unsupported store key file version \(bytes[4])") }
        switch bytes[5] {
        case kindKeyFile: return .keyFile
        case kindScrypt: return .passphrase
        case kindSealed:
            guard bytes.count >= 8 else { throw corrupt("the store key file is damaged") }
            return .sealed(mechanism: bytes[6], usesPIN: bytes[7] & 1 != 0)
        default: throw corrupt("unknown store key file kind")
        }
    }

    /// Kind 2: `mechanism:u8  flags:u8 (bit 0: PIN)  length:u16  blob[length]  crc32:u32`. The CRC only
    /// tells damage from a wrong PIN or TPM; the sealer authenticates its own blob.
    static func encodeSealed(master: SymmetricKey, sealer: any MasterKeySealer) throws -> [UInt8] {
        let blob = try sealer.seal(master.withUnsafeBytes { SecretBytes($0) })
        guard blob.count <= 2048 else { throw VaultError(.storeUnavailable, underlying: .message("the sealed store key is too large")) }
        var file = magic + [formatVersion, kindSealed, sealer.mechanism, sealer.usesPIN ? 1 : 0]
        file += [UInt8(blob.count >> 8), UInt8(blob.count & 0xFF)] + blob
        let crc = CRC32.checksum(file)
        file += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return file
    }

    static func decodeSealed(_ bytes: [UInt8], sealer: any MasterKeySealer) throws -> SymmetricKey {
        guard bytes.count >= 14 else { throw corrupt("the store key file is damaged") }
        let length = Int(bytes[8]) << 8 | Int(bytes[9])
        guard bytes.count == 10 + length + 4 else { throw corrupt("the store key file is damaged") }
        let end = 10 + length
        let stored = UInt32(bytes[end]) << 24 | UInt32(bytes[end + 1]) << 16 | UInt32(bytes[end + 2]) << 8 | UInt32(bytes[end + 3])
        guard CRC32.checksum(bytes[0..<end]) == stored else { throw corrupt("the store key file is damaged") }
        guard bytes[6] == sealer.mechanism else {
            throw VaultError(.storeLocked, underlying: .message("this store's key is sealed by another mechanism (\(bytes[6]))"))
        }
        let master = try sealer.unseal(Array(bytes[10..<end]))
        guard master.count == 32 else { throw corrupt("the sealed store key is not a 256-bit key") }
        return master.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// The key file for `master` under `source`, as ``create(root:source:)`` writes it.
    static func encode(master: SymmetricKey, source: EncryptedFileStore.KeySource) throws -> [UInt8] {
        var file = magic + [formatVersion]
        switch source {
        case .keyFile:
            file.append(kindKeyFile)
            master.withUnsafeBytes { file += $0 }
            let crc = CRC32.checksum(file)
            file += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
            return file
        case .passphrase(let passphrase):
            guard !passphrase.isEmpty else { throw VaultError(.authenticationFailed, underlying: .message("the passphrase is empty")) }
            let cost = newScryptCost
            file += [kindScrypt, cost.log2N, cost.blockSize, cost.parallelism]
            let salt = SymmetricKey(size: SymmetricKeySize(bitCount: 128)).withUnsafeBytes { Array($0) }
            file += salt
            let wrappingKey = try derive(passphrase: passphrase, salt: salt, cost: cost)
            let sealed: AES.GCM.SealedBox
            do {
                sealed = try AES.GCM.seal(master.withUnsafeBytes { Array($0) }, using: wrappingKey, authenticating: file)
            } catch {
                throw VaultError(.storeUnavailable, underlying: .message("AES-GCM seal failed"))
            }
            return file + sealed.nonce + sealed.ciphertext + sealed.tag
        case .sealed(let sealer):
            return try encodeSealed(master: master, sealer: sealer)
        case .unlocked:
            throw VaultError(.storeLocked, underlying: .message("the store's key file is missing; a key unlocked from it cannot make a new one"))
        }
    }
}

extension EncryptedFileStore {
    /// Creates the store's directory and a new master key under `source`, when it has no key file yet
    /// (so `key seal --tpm` can prepare an empty store). If another process created one meanwhile, opens
    /// that one with `source` instead.
    public static func createKey(directory: URL? = nil, source: KeySource) throws {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        try StoreLocation.validate(root)
        try StoreLocation.create(root)
        _ = try KeyFile.create(root: root, source: source)
    }
}
