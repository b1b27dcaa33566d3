import BiometricsVaultFileStore
import BiometricsVaultTPM
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What protects the encrypted file store's master key (a key file, a passphrase, or the TPM with an
/// optional PIN), and changing it. The platform default opens the store with whatever its key file
/// records, so a change made here holds for every later vault.
///
/// A change is two steps, so a caller asks for the current secret before the new one:
/// ```swift
/// let change = try FileStoreKey.Change(currentSecret: { kind in try askCurrent(kind) })
/// let outcome = try change.apply(.tpm(pin: try askNewPIN()))
/// ```
package enum FileStoreKey {
    /// What protects the master key, as its key file records it (read without unsealing anything).
    /// The raw value is the name `biometrics-vault key status` prints.
    package enum Protection: String, Sendable, Hashable, CaseIterable {
        /// A plain key file (`master.key`, 0600).
        case keyFile = "key-file"
        /// Wrapped by a passphrase (scrypt).
        case passphrase
        /// Sealed by this machine's TPM, no PIN.
        case tpm
        /// Sealed by this machine's TPM behind a PIN the TPM checks.
        case tpmWithPIN = "tpm+pin"
        /// Sealed by a mechanism this version does not know.
        case otherSealer = "sealed"

        init(_ stored: StoredKeyProtection) {
            switch stored {
            case .keyFile: self = .keyFile
            case .passphrase: self = .passphrase
            case .sealed(let mechanism, let usesPIN):
                if mechanism == TPMSealer.mechanism { self = usesPIN ? .tpmWithPIN : .tpm } else { self = .otherSealer }
            }
        }
    }

    /// A protection to change to.
    package enum NewProtection: Sendable {
        /// A plain key file, no longer bound to a TPM or a passphrase.
        case keyFile
        /// Wrapped by this passphrase (not empty).
        case passphrase(SecretBytes)
        /// Sealed by the TPM at ``tpmTCTI``, behind `pin` when there is one (1 to 32 bytes, no NUL).
        case tpm(pin: SecretBytes?)
    }

    /// What ``Change/apply(_:)`` did.
    package enum ChangeOutcome: Sendable, Equatable {
        /// The existing store's master key is protected the new way (its items are unchanged).
        case changed
        /// There was no store: an empty one was created, protected the new way.
        case created
    }

    /// The directory of the default store (`$XDG_DATA_HOME/biometrics-vault`).
    package static var defaultDirectory: URL { EncryptedFileStore.defaultDirectory() }

    /// What protects the store in `directory` (default ``defaultDirectory``); `nil` when it has no key
    /// file yet. Reads only the key file's header (and removes what an interrupted change left beside it).
    ///
    /// - Throws: `corruptedItem` for a damaged key file; `storeUnavailable` for I/O errors.
    package static func protection(directory: URL? = nil) throws -> Protection? {
        try EncryptedFileStore.keyProtection(directory: directory).map(Protection.init)
    }

    /// A change of the store's protection, opened with its current secret.
    package struct Change: Sendable {
        /// What protects the store now; `nil` when there is no store yet.
        package let current: Protection?
        private let directory: URL?
        private let currentSource: EncryptedFileStore.KeySource?
        private let tpm: TPMConfiguration

        /// Reads what protects the store in `directory` (default ``FileStoreKey/defaultDirectory``) and, when
        /// that needs a secret (its passphrase, or the TPM PIN), asks `currentSecret` for it. Nothing is
        /// checked against the TPM or the key file yet, and nothing is changed. `tpm`: the TPM that seals
        /// the key now or will (the default: the kernel's resource manager, 15 s per operation).
        ///
        /// - Throws: what ``FileStoreKey/protection(directory:)`` throws; what `currentSecret` throws.
        package init(
            directory: URL? = nil, tpm: TPMConfiguration = TPMConfiguration(), currentSecret: (StoreSecretKind) throws -> SecretBytes
        ) throws {
            self.directory = directory
            self.tpm = tpm
            let stored = try EncryptedFileStore.keyProtection(directory: directory)
            current = stored.map(Protection.init)
            switch stored {
            case nil: currentSource = nil
            case .keyFile: currentSource = .keyFile
            case .passphrase: currentSource = .passphrase(try currentSecret(.passphrase))
            case .sealed(_, let usesPIN):
                currentSource = .sealed(TPMSealer(tpm: tpm, pin: usesPIN ? .given(try currentSecret(.tpmPIN)) : .none))
            }
        }

        /// Protects the store's master key with `protection`; with no store yet, creates an empty one so
        /// protected.
        ///
        /// Atomic: the new key file is built and checked first (a sealed key is unsealed again and
        /// compared), then written beside the old one, made durable and renamed over it. On any error, or
        /// a process killed at any point, the store opens with its old protection (or with the new one, once the
        /// rename happened); its items are never touched.
        ///
        /// - Throws: `authenticationFailed` for a wrong current passphrase or PIN; `biometryLockout` when
        ///   the TPM refuses PINs after too many wrong ones; `encodingFailed` for a PIN a TPM cannot take;
        ///   `storeUnavailable` when the TPM cannot be reached (or did not answer within its
        ///   ``TPMConfiguration/timeout``); `corruptedItem` for a damaged key file.
        @discardableResult
        package func apply(_ protection: NewProtection) throws -> ChangeOutcome {
            let target: EncryptedFileStore.KeySource
            switch protection {
            case .keyFile: target = .keyFile
            case .passphrase(let passphrase): target = .passphrase(passphrase)
            case .tpm(let pin?): target = .sealed(TPMSealer(tpm: tpm, pin: .given(pin)))
            case .tpm(nil): target = .sealed(TPMSealer(tpm: tpm, pin: .none))
            }
            guard let currentSource else {
                try EncryptedFileStore.createKey(directory: directory, source: target)
                return .created
            }
            try EncryptedFileStore.changeKeySource(directory: directory, from: currentSource, to: target)
            return .changed
        }
    }

    /// Reads the state of the TPM `tpm` names; needs no authorization and never counts against its lockout.
    ///
    /// - Throws: `storeUnavailable` when there is no TPM, no permission to use it, or no answer within
    ///   `tpm.timeout` seconds.
    package static func tpmState(_ tpm: TPMConfiguration = TPMConfiguration()) throws -> TPMStatus {
        try TPMStatus.read(tpm)
    }
}
