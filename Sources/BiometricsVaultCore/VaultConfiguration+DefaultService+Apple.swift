#if canImport(Darwin)
import Foundation

extension VaultConfiguration {
    /// The app's bundle identifier where there is one (what BiometricsVault 0.30 used), else
    /// `"biometrics-vault"`. Never force-unwraps: command-line tools and test hosts have no bundle id.
    public static var defaultService: String {
        Bundle.main.bundleIdentifier ?? "biometrics-vault"
    }
}
#endif
