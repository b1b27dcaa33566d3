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
