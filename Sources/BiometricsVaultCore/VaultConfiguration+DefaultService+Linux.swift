#if !canImport(Darwin)
extension VaultConfiguration {
    /// `"biometrics-vault"`: programs here have no bundle identifier (the Apple build uses the app's).
    public static var defaultService: String { "biometrics-vault" }
}
#endif
