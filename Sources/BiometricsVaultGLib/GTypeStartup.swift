// GTypeStartup moved into the package's D-Bus layer (BiometricsVaultDBus), which owns GIO's start-up.
// This target only forwards it, for the Secret Service store until that store calls D-Bus through
// BiometricsVaultDBus too; then this target goes.
#if os(Linux)
@_exported import BiometricsVaultDBus
#endif
