import BiometricsVaultCore
import BiometricsVaultFileStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where the TPM is and how long one of its operations may take. The caller passes it (the
/// `biometrics-vault` CLI reads `BIOMETRICS_VAULT_TPM_TCTI` and `BIOMETRICS_VAULT_TPM_TIMEOUT` into one);
/// the library reads no setting of its own.
public struct TPMConfiguration: Sendable, Equatable {
    /// The kernel's resource manager.
    public static let defaultTCTI = "device:/dev/tpmrm0"
    public static let defaultTimeout = 15
    /// The ``timeout``s accepted: whole seconds, 1 to 3600.
    public static let timeoutRange = 1...3600

    /// The TCTI string: `device:/dev/tpmrm0` (the default), `device:PATH` or a bare device path, or
    /// `swtpm:host=...,port=...` for a software TPM.
    public var tcti: String
    /// How many seconds one TPM operation (seal, unseal, status) may take before it fails with
    /// `storeUnavailable`. A real TPM answers in well under a second or two; one that does not is stopped
    /// or hung.
    public var timeout: Int

    /// An empty `tcti` is the default; a `timeout` outside ``timeoutRange`` is clamped into it.
    public init(tcti: String = defaultTCTI, timeout: Int = defaultTimeout) {
        self.tcti = tcti.isEmpty ? Self.defaultTCTI : tcti
        self.timeout = min(max(timeout, Self.timeoutRange.lowerBound), Self.timeoutRange.upperBound)
    }

    /// The device file of a `device` TCTI (`device`, `device:PATH`, or a bare path), else `nil`.
    static func devicePath(_ tcti: String) -> String? {
        if tcti == "device" || tcti == "device:" { return "/dev/tpm0" }
        if tcti.hasPrefix("device:") { return String(tcti.dropFirst("device:".count)) }
        if tcti.hasPrefix("/dev/") { return tcti }
        return nil
    }
}

/// The TPM's identity and dictionary-attack state (`TPM2_GetCapability`, no authorization needed).
public struct TPMStatus: Equatable, Sendable {
    /// The vendor ID (e.g. "IBM" for swtpm, "INTC", "AMD", "MSFT").
    public var manufacturer: String
    /// Failed authorizations counted against DA-protected objects (a PIN-sealed key).
    public var lockoutCounter: UInt32
    /// Failures allowed before lockout (`TPM2_PT_MAX_AUTH_FAIL`).
    public var maximumTries: UInt32
    /// Seconds after which the TPM forgets one failure (`TPM2_PT_LOCKOUT_INTERVAL`).
    public var lockoutInterval: UInt32
    /// Seconds before the lockout authorization may be tried again after it failed (`TPM2_PT_LOCKOUT_RECOVERY`).
    public var lockoutRecovery: UInt32
    /// Whether the TPM refuses DA-protected authorizations now.
    public var inLockout: Bool

    public init(
        manufacturer: String, lockoutCounter: UInt32, maximumTries: UInt32, lockoutInterval: UInt32, lockoutRecovery: UInt32,
        inLockout: Bool
    ) {
        self.manufacturer = manufacturer
        self.lockoutCounter = lockoutCounter
        self.maximumTries = maximumTries
        self.lockoutInterval = lockoutInterval
        self.lockoutRecovery = lockoutRecovery
        self.inLockout = inLockout
    }

    /// Reads the status of the TPM `tpm` names.
    ///
    /// - Throws: `storeUnavailable` when there is no TPM or no permission to use it (in words).
    public static func read(_ tpm: TPMConfiguration = TPMConfiguration()) throws -> TPMStatus {
        try TPMBackend.status(tpm)
    }
}

/// Seals the file store's master key with the TPM (``EncryptedFileStore/KeySource/sealed(_:)``): under the
/// owner hierarchy's storage primary key, re-derived on every use, so nothing is kept in the TPM and the
/// blob in `master.key` opens only on this TPM. With a PIN, the sealed object's authValue is the PIN: the
/// TPM checks it and counts wrong ones against its dictionary-attack limit.
///
/// Both directions run in a salted HMAC session with AES-128-CFB parameter encryption, so neither the
/// PIN nor the key crosses the bus to the TPM in clear.
public struct TPMSealer: MasterKeySealer {
    /// Where the PIN comes from; asked only when the TPM is about to be used.
    public enum PIN: Sendable {
        /// No PIN: the sealed object's authValue is empty.
        case none
        case given(SecretBytes)
        /// Asked when needed (a terminal prompt, say); throws to cancel.
        case ask(@Sendable () throws -> SecretBytes)
    }

    public static let mechanism: UInt8 = 1

    public let tpm: TPMConfiguration
    public let pin: PIN

    public init(tpm: TPMConfiguration = TPMConfiguration(), pin: PIN = .none) {
        self.tpm = tpm
        self.pin = pin
    }

    public var mechanism: UInt8 { Self.mechanism }

    public var usesPIN: Bool {
        switch pin {
        case .none: false
        case .given, .ask: true
        }
    }

    public func seal(_ masterKey: SecretBytes) throws -> [UInt8] {
        try TPMBackend.seal(masterKey, pin: resolvedPIN(), tpm: tpm)
    }

    public func unseal(_ blob: [UInt8]) throws -> SecretBytes {
        try TPMBackend.unseal(blob, pin: resolvedPIN(), tpm: tpm)
    }

    private func resolvedPIN() throws -> SecretBytes? {
        switch pin {
        case .none: return nil
        case .given(let pin): return try Self.checked(pin)
        case .ask(let ask): return try Self.checked(ask())
        }
    }

    /// A TPM authValue holds at most the name algorithm's digest size (32 bytes for SHA-256), and the TPM
    /// drops its trailing zero bytes: a PIN of NUL bytes would be no PIN, and "1234" + NUL would be
    /// "1234". So a PIN is 1 to 32 bytes without NUL; anything else is refused as input that cannot be
    /// a PIN (`encodingFailed`), before the TPM is asked (nothing counts against its lockout).
    private static func checked(_ pin: SecretBytes) throws -> SecretBytes {
        guard !pin.isEmpty else { throw VaultError(.encodingFailed, underlying: .message("the PIN is empty")) }
        guard pin.count <= 32 else {
            throw VaultError(.encodingFailed, underlying: .message("the PIN is longer than 32 bytes, more than a TPM accepts"))
        }
        guard !pin.withUnsafeBytes({ $0.contains(0) }) else {
            throw VaultError(.encodingFailed, underlying: .message("the PIN contains a NUL byte, which a TPM ignores at its end; choose another PIN"))
        }
        return pin
    }
}
