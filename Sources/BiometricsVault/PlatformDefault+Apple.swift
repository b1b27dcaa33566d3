#if canImport(Security) && canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))
import BiometricsVaultApple

/// iOS, macOS, visionOS: the Keychain with LocalAuthentication is the platform's own store and
/// authenticator; `PlatformDefault+Other.swift` uses them for `auto`.
enum NativeBackend {
    static var store: (any SecretStore)? { KeychainStore() }
    static var authenticator: (any Authenticator)? { LocalAuthenticator() }
    static let storeName = "keychain"
    static let authenticatorName = "local-authentication"
}
#elseif !os(Linux)
/// Platforms without a native backend in this package (tvOS and watchOS have no LocalAuthentication
/// authenticator here; Windows and others have no keychain): the encrypted file store, no biometrics.
enum NativeBackend {
    static var store: (any SecretStore)? { nil }
    static var authenticator: (any Authenticator)? { nil }
    static let storeName = "keychain"
    static let authenticatorName = "local-authentication"
}
#endif
