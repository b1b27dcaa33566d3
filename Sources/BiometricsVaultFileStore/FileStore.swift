// The encrypted file store lands here (issue: encrypted file store).
import BiometricsVaultCore
