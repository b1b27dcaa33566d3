#if canImport(Darwin)
// Apple only: the marker lives in the app's defaults, which the system deletes with the app. Linux has
// no such lifetime (and the core does not link full Foundation there, see Docs/Benchmarks.md).
import Foundation

extension InstallMarker {
    /// Markers in `UserDefaults` (the standard defaults, or the suite, e.g. an app group shared with
    /// extensions), one boolean per service and key under `BiometricsVault.installed.…`. Holds no secret.
    public static func userDefaults(suiteName: String? = nil) -> InstallMarker {
        // The defaults object is looked up on each call, not captured: `UserDefaults` is thread-safe but
        // not `Sendable` on every platform.
        @Sendable func defaults() -> UserDefaults { suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard }
        @Sendable func name(_ service: String, _ key: String) -> String {
            "BiometricsVault.installed.\(service.utf8.count):\(service)/\(key)"
        }
        return InstallMarker(
            contains: { service, key in defaults().bool(forKey: name(service, key)) },
            insert: { service, key in defaults().set(true, forKey: name(service, key)) })
    }
}
#endif
