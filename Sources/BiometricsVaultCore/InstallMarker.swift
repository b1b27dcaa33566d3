#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    func contains(_ id: SecretItemID) -> Bool { containsKey(id.service, id.key) }
    func insert(_ id: SecretItemID) { insertKey(id.service, id.key) }
}
