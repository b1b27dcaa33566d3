import BiometricsVaultTestSupport
import Foundation

extension CLISandbox {
    /// A sandbox whose CLI runs reach the TPM at `tcti`.
    init(tcti: String) throws {
        try self.init()
        environment["BIOMETRICS_VAULT_TPM_TCTI"] = tcti
    }

    /// Runs the CLI with another TPM (`nil`: the sandbox's); `stdin` is its standard input. Never on a terminal.
    func run(_ arguments: [String], stdin: String? = nil, tcti: String?) async throws -> CLIResult {
        var sandbox = self
        if let tcti { sandbox.environment["BIOMETRICS_VAULT_TPM_TCTI"] = tcti }
        return try await sandbox.run(arguments, stdin: stdin)
    }
}
