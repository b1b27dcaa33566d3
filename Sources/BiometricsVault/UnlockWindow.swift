// What apps import: the core. The backends' modules (and the unlock-window agent's, whose opt-in is
// ``UnlockWindows``) are imported by name where an app needs them.
@_exported import BiometricsVaultCore
