// The Secret Service store lands here (issue: Secret Service store). Linux only.
import BiometricsVaultCore
