// What apps import: the core, re-exported (and nothing else: the backends' modules are imported by name
// where an app needs one), and the platform default this target adds.
@_exported import BiometricsVaultCore
