#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A configuration built from explicit or automatic choices, with the facts behind it.
public struct PlatformSelection: Sendable {
    /// The configuration to retrieve vaults with.
    public var configuration: VaultConfiguration
    /// The store's name (`"secret-service"` or `"file"`).
    public var storeName: String
    /// The biometric authenticator's name: `"fprintd"`, `"none"`, or `"auto"` (fprintd or none, decided
    /// on first use).
    public var authenticatorName: String
    /// The owner authentication's name (`"pam"`, `"polkit"`) or `"none"`.
    public var ownerAuthenticationName: String
    /// How long one fingerprint prompt waits for a finger, when the authenticator may be fprintd
    /// (check ``VaultConfiguration/authenticator``'s `biometryType` before showing a prompt).
    public var fingerprintTimeout: Duration?
    /// A note for the user about an automatic fallback (e.g. "no Secret Service; using the file store").
    public var notice: String?
}

extension PlatformSelection {
    /// Adopts an item written by `secret-tool` or python `keyring` (attributes `service`, `username`) as
    /// the plain item `key` of this selection's service, in the Secret Service store.
    ///
    /// `converting` turns the source's secret into the stored payload (the credentials' stored text),
    /// or throws to refuse it; it runs before anything is written (see
    /// `SecretServiceStore.importItem(service:username:as:removeSource:converting:)`).
    ///
    /// - Throws: `storeUnavailable` when the Secret Service is not this selection's store or cannot be
    ///   reached, `itemNotFound` when no such item exists, `invalidKey`, what `converting` throws.
    public func importSecretServiceItem(
        service: String, username: String, as key: String, removeSource: Bool,
        converting: (SecretBytes) throws -> SecretBytes
    ) throws {
        guard storeName == "secret-service" else {
            throw VaultError(.storeUnavailable, underlying: .message("import needs the secret-service store, not \(storeName)"))
        }
        let id = try SecretItemID(service: configuration.service, key: key)
        try PlatformBackends.importItem(
            service: service, username: username, into: id, removeSource: removeSource, converting: converting)
    }
}
