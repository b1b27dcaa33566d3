@_exported import BiometricsVaultCore
