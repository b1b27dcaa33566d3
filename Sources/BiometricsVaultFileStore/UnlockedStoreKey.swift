import BiometricsVaultCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A store's master key as its key file gave it once (after the passphrase or the TPM PIN), bound to
/// that key file: ``EncryptedFileStore/KeySource/unlocked(_:)`` opens the store with it, without the
/// secret, only while the key file is byte for byte the one it came from. Any `key` verb, a `reset` or a
/// key file copied in rewrites the file, and the key no longer opens anything.
public struct UnlockedStoreKey: Sendable {
    /// The 32-byte master key (zeroed when the last copy goes away).
    public let master: SecretBytes
    /// SHA-256 (lowercase hex) of the key file it came from. Not secret: the key file is no secret
    /// without its passphrase or TPM.
    public let keyFileDigest: String

    public init(master: SecretBytes, keyFileDigest: String) {
        self.master = master
        self.keyFileDigest = keyFileDigest
    }
}

extension EncryptedFileStore {
    /// The SHA-256 (lowercase hex) of the store's key file now; `nil` when it has none.
    ///
    /// - Throws: `storeUnavailable` for I/O errors or a key file that is not a regular file.
    public static func keyFileDigest(directory: URL? = nil) throws -> String? {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        return try KeyFile.readBytes(root: root).map(KeyFile.digest)
    }

    /// Opens the key file once with `source` (asking for the passphrase or PIN as `source` does) and
    /// returns its master key bound to the file's digest; `nil` when the store has no key file yet.
    ///
    /// - Throws: what opening the store with `source` throws (`authenticationFailed` for a wrong
    ///   passphrase or PIN, `storeLocked`, `corruptedItem`, `storeUnavailable`).
    public static func unlockKey(directory: URL? = nil, source: KeySource) throws -> UnlockedStoreKey? {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        try StoreLocation.validate(root)
        guard let bytes = try KeyFile.readBytes(root: root) else { return nil }
        let master = try KeyFile.decodeMaster(bytes, source: source)
        return UnlockedStoreKey(master: master.withUnsafeBytes { SecretBytes($0) }, keyFileDigest: KeyFile.digest(bytes))
    }
}

extension EncryptedFileStore {
    /// Whether the store's own data proves `unlocked` to be its key: it is bound to the key file as it
    /// is now, at least one service directory's key check value (or, for a directory without one, an
    /// item) was made with it, and none contradicts it. An unlocked key handed over by another process
    /// (the unlock-window agent) cannot be checked against the key file itself, which only the
    /// passphrase or the TPM opens; so a store with no data yet proves nothing, and `false` means: ask
    /// for the secret rather than write under a key nobody showed to be this store's.
    ///
    /// - Throws: `corruptedItem` when the data was written with another key; `storeLocked` when the key
    ///   file changed since the key was unlocked; `storeUnavailable` for I/O errors.
    public static func provesKey(_ unlocked: UnlockedStoreKey, directory: URL? = nil) throws -> Bool {
        let root = (try directory ?? requireDefaultDirectory()).standardizedFileURL.path
        try StoreLocation.validate(root)
        guard let keys = try KeyFile.load(root: root, source: .unlocked(unlocked)) else { return false }
        return try KeyCheck.verify(root: root, keys: keys) > 0
    }
}

extension KeyFile {
    static func digest(_ bytes: [UInt8]) -> String {
        Hex.encode(SHA256.hash(data: bytes))
    }

    /// The master key of an ``UnlockedStoreKey``, when `bytes` are the key file it came from.
    static func decodeUnlocked(_ bytes: [UInt8], _ unlocked: UnlockedStoreKey) throws -> SymmetricKey {
        guard digest(bytes) == unlocked.keyFileDigest else {
            throw VaultError(.storeLocked, underlying: .message("the store's key file changed since its key was unlocked; it must be opened again"))
        }
        guard unlocked.master.count == 32 else { throw corrupt("the unlocked store key is not a 256-bit key") }
        return unlocked.master.withUnsafeBytes { SymmetricKey(data: $0) }
    }
}
