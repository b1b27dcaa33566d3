// The unlock-window agent's messages and, on Linux, its client and authenticator wrapper (opt-in:
// ``UnlockWindowAuthenticator``).
@_exported import BiometricsVaultAgent
