#if os(Linux)
import BiometricsVaultCore

/// On Linux the TPM is reached through tpm2-tss (``TSS2``).
enum TPMBackend {
    static func seal(_ secret: SecretBytes, pin: SecretBytes?, tcti: String) throws -> [UInt8] {
        try TSS2.seal(secret, pin: pin, tcti: tcti)
    }

    static func unseal(_ blob: [UInt8], pin: SecretBytes?, tcti: String) throws -> SecretBytes {
        try TSS2.unseal(blob, pin: pin, tcti: tcti)
    }

    static func status(tcti: String) throws -> TPMStatus {
        try TSS2.status(tcti: tcti)
    }
}
#endif
