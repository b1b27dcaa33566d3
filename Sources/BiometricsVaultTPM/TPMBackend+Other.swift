#if !os(Linux)
import BiometricsVaultCore

/// Elsewhere there is no TPM support (Apple platforms protect keys with the Secure Enclave instead).
enum TPMBackend {
    static func seal(_ secret: SecretBytes, pin: SecretBytes?, tpm: TPMConfiguration) throws -> [UInt8] { throw unsupported }
    static func unseal(_ blob: [UInt8], pin: SecretBytes?, tpm: TPMConfiguration) throws -> SecretBytes { throw unsupported }
    static func status(_ tpm: TPMConfiguration) throws -> TPMStatus { throw unsupported }

    private static var unsupported: VaultError {
        VaultError(.storeUnavailable, underlying: .message("TPM sealing is available on Linux only"))
    }
}
#endif
