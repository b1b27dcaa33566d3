#if !os(Linux)
import BiometricsVault

/// Unlock windows need the Linux agent (BiometricsVaultAgent); elsewhere `--unlock-window` changes nothing.
enum UnlockWindowHook {
    static func wrap(_ authenticator: any Authenticator, options: GlobalOptions) -> any Authenticator {
        authenticator
    }

    static func storeKeyKeeper(options: GlobalOptions) -> (any StoreKeyKeeper)? { nil }

    static func forgetStoreKeys() {}

    static func runAgent(idleSeconds: Int) throws {
        throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent runs on Linux only"))
    }

    static func lockAll() throws -> Int { 0 }

    static func state(options: GlobalOptions, service: String?) -> UnlockWindowState {
        options.unlockWindow == nil ? .off : .unavailable("unlock windows need the Linux agent")
    }

    static func status() throws -> (scope: String?, windows: [UnlockWindowReport])? { nil }
}
#endif
