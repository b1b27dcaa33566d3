#if os(Linux)
// The unlock-window agent's client and authenticator wrapper (opt-in: ``UnlockWindowAuthenticator``).
@_exported import BiometricsVaultAgent
#endif
