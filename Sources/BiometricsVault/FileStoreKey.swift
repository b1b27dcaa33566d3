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
public enum FileStoreKey {
    /// What protects the master key, as its key file records it (read without unsealing anything).
    /// The raw value is the name `biometrics-vault key status` prints.
    public enum Protection: String, Sendable, Hashable, CaseIterable {
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
    public enum NewProtection: Sendable {
        /// A plain key file, no longer bound to a TPM or a passphrase.
        case keyFile
        /// Wrapped by this passphrase (not empty).
        case passphrase(SecretBytes)
        /// Sealed by the TPM at ``tpmTCTI``, behind `pin` when there is one (1 to 32 bytes, no NUL).
        case tpm(pin: SecretBytes?)
    }

    /// What ``Change/apply(_:)`` did.
    public enum ChangeOutcome: Sendable, Equatable {
        /// The existing store's master key is protected the new way (its items are unchanged).
        case changed
        /// There was no store: an empty one was created, protected the new way.
        case created
    }

    /// The directory of the default store (`$XDG_DATA_HOME/biometrics-vault`).
    public static var defaultDirectory: URL { EncryptedFileStore.defaultDirectory() }

    /// What protects the store in `directory` (default ``defaultDirectory``); `nil` when it has no key
    /// file yet. Reads only the key file's header (and removes what an interrupted change left beside it).
    ///
    /// - Throws: `corruptedItem` for a damaged key file; `storeUnavailable` for I/O errors.
    public static func protection(directory: URL? = nil) throws -> Protection? {
        try EncryptedFileStore.keyProtection(directory: directory).map(Protection.init)
    }

    /// A change of the store's protection, opened with its current secret.
    public struct Change: Sendable {
        /// What protects the store now; `nil` when there is no store yet.
        public let current: Protection?
        private let directory: URL?
        private let currentSource: EncryptedFileStore.KeySource?
        private let tpm: TPMConfiguration

        /// Reads what protects the store in `directory` (default ``FileStoreKey/defaultDirectory``) and, when
        /// that needs a secret (its passphrase, or the TPM PIN), asks `currentSecret` for it. Nothing is
        /// checked against the TPM or the key file yet, and nothing is changed. `tpm`: the TPM that seals
        /// the key now or will (the default: the kernel's resource manager, 15 s per operation).
        ///
        /// - Throws: what ``FileStoreKey/protection(directory:)`` throws; what `currentSecret` throws.
        public init(
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
        public func apply(_ protection: NewProtection) throws -> ChangeOutcome {
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

    /// The TPM's identity and dictionary-attack state.
    public struct TPMState: Sendable, Equatable {
        /// The vendor ID (e.g. "IBM" for swtpm, "INTC", "AMD", "MSFT").
        public var manufacturer: String
        /// Failed authorizations counted against PIN-protected keys.
        public var lockoutCounter: UInt32
        /// Failures allowed before lockout.
        public var maximumTries: UInt32
        /// Seconds after which the TPM forgets one failure.
        public var lockoutInterval: UInt32
        /// Seconds before the lockout authorization may be tried again after it failed.
        public var lockoutRecovery: UInt32
        /// Whether the TPM refuses PIN-protected keys now.
        public var inLockout: Bool
    }

    /// Reads the state of the TPM `tpm` names; needs no authorization and never counts against its lockout.
    ///
    /// - Throws: `storeUnavailable` when there is no TPM, no permission to use it, or no answer within
    ///   `tpm.timeout` seconds.
    public static func tpmState(_ tpm: TPMConfiguration = TPMConfiguration()) throws -> TPMState {
        let status = try TPMStatus.read(tpm)
        return TPMState(
            manufacturer: status.manufacturer, lockoutCounter: status.lockoutCounter, maximumTries: status.maximumTries,
            lockoutInterval: status.lockoutInterval, lockoutRecovery: status.lockoutRecovery, inLockout: status.inLockout)
    }
}
