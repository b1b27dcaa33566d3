import BiometricsVaultCore
import BiometricsVaultTPM

/// The CLI's TPM settings: the library takes a ``TPMConfiguration`` and reads no variable itself.
enum TPMSettings {
    /// The variable that says where the TPM is (a TCTI string).
    static let tctiVariable = "BIOMETRICS_VAULT_TPM_TCTI"
    /// The variable that sets how many seconds one TPM operation may take (1 to 3600).
    static let timeoutVariable = "BIOMETRICS_VAULT_TPM_TIMEOUT"

    /// `$BIOMETRICS_VAULT_TPM_TCTI` (empty or unset: the default) and `$BIOMETRICS_VAULT_TPM_TIMEOUT` (a
    /// value that is not whole seconds from 1 to 3600 is ignored), read once per process.
    static let current: TPMConfiguration = {
        let timeout = EnvironmentVariable.value(timeoutVariable).flatMap(Int.init).flatMap {
            TPMConfiguration.timeoutRange.contains($0) ? $0 : nil
        }
        return TPMConfiguration(tcti: EnvironmentVariable.value(tctiVariable) ?? "", timeout: timeout ?? TPMConfiguration.defaultTimeout)
    }()
}
