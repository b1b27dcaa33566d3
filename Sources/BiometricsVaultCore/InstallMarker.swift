import Foundation

/// Remembers, outside the secret store, which keys this install of the app has seen: the signal that
/// tells a first launch after a reinstall (marker gone, store item still there) from an ordinary launch.
///
/// Set ``VaultConfiguration/installMarker`` to opt in. On Apple platforms use
/// ``userDefaults(suiteName:)``: deleting the app deletes its defaults but not its keychain items. On
/// Linux nothing is "reinstalled" (removing a package deletes neither the keyring nor the data files),
/// so the CLI and the platform default leave it off; `biometrics-vault reset KEY` is how to start clean.
public struct InstallMarker: Sendable {
    private let containsKey: @Sendable (_ service: String, _ key: String) -> Bool
    private let insertKey: @Sendable (_ service: String, _ key: String) -> Void

    /// A marker kept wherever the two closures keep it. `contains` must never prompt or throw.
    public init(
        contains: @escaping @Sendable (_ service: String, _ key: String) -> Bool,
        insert: @escaping @Sendable (_ service: String, _ key: String) -> Void
    ) {
        containsKey = contains
        insertKey = insert
    }

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

    func contains(_ id: SecretItemID) -> Bool { containsKey(id.service, id.key) }
    func insert(_ id: SecretItemID) { insertKey(id.service, id.key) }
}
