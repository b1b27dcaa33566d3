#if os(Linux)
/// The provider's object paths, names and error names of the Secret Service API (spec 0.2); its
/// methods, properties and signals are ``SecretServiceAPI``'s.
enum ProviderInterface {
    static let busName = "org.freedesktop.secrets"
    static let root = "/org/freedesktop/secrets"
    static let collections = "/org/freedesktop/secrets/collection"
    static let aliases = "/org/freedesktop/secrets/aliases"
    static let sessions = "/org/freedesktop/secrets/session"
    static let prompts = "/org/freedesktop/secrets/prompt"

    static let plain = "plain"

    /// The attribute that gives one item its own policy (a `ProtectionPolicy` raw value).
    static let policyAttribute = "biometrics-vault:policy"
    /// The `CreateCollection` property that gives a collection its policy.
    static let collectionPolicyProperty = "io.github.biometricsvault.Collection.Policy"

    enum Error {
        static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
        static let noSession = "org.freedesktop.Secret.Error.NoSession"
        static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
        static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
        static let failed = "org.freedesktop.DBus.Error.Failed"
        static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    }
}
#endif
