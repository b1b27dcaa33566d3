#if !os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore

/// Unlock windows need the Linux agent: here they are off, and the agent's calls report that.
public enum UnlockWindows {
    /// `authenticator` unchanged.
    public static func authenticator(
        wrapping authenticator: any Authenticator, service: String, seconds: Int, startsAgent: Bool
    ) -> (authenticator: any Authenticator, unavailability: String?) {
        (authenticator, nil)
    }

    public static func storeKeyKeeper(seconds: Int, startsAgent: Bool) -> (any StoreKeyKeeper)? { nil }

    package static func state(seconds: Int?, service: String?) -> UnlockWindowState {
        seconds == nil ? .off : .unavailable("unlock windows need the Linux agent")
    }

    package static func forgetDefaultStoreKeys() {}

    /// 0: no agent runs here, so no window is open.
    package static func lockAll() throws(VaultError) -> Int { 0 }

    /// `nil`: no agent runs here.
    package static func status() throws(VaultError) -> (scope: String?, windows: [UnlockWindowReport])? { nil }

    package static func runAgent(idleSeconds: Int, logToFile: Bool = false, notice: @escaping @Sendable (String) -> Void) async throws(VaultError) {
        throw VaultError(.storeUnavailable, underlying: .message("the unlock-window agent runs on Linux only"))
    }
}
#endif
