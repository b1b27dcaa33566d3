#if os(Linux)
import BiometricsVaultCore
import BiometricsVaultProcess

/// Keeps the file store's key in the unlock-window agent for a window of ``seconds``: for the terminal
/// and session the agent sees the asking process in (as windows are scoped), bound to the store's root
/// and its key file. The agent holds it in locked, undumpable memory and zeroes it when the window ends.
/// Any failure to reach the agent means "no key": the passphrase or PIN is asked as without windows.
package struct UnlockWindowStoreKeyKeeper: StoreKeyKeeper {
    package let client: UnlockWindowAgentClient
    package let seconds: Int

    package init(client: UnlockWindowAgentClient, seconds: Int) {
        self.client = client
        self.seconds = seconds
    }

    /// Asked only with a controlling terminal (without one there is no scope to keep a key for).
    package func key(store: String, keyFile: String) -> SecretBytes? {
        guard PeerScope.thisProcessHasTerminal,
            let answer = try? client.exchange(.storeKey(store: store, keyFile: keyFile), storeKey: nil, startingAgent: false),
            case .storeKey(found: true) = answer.response
        else { return nil }
        return answer.storeKey
    }

    package func keep(_ key: SecretBytes, store: String, keyFile: String) {
        _ = try? client.exchange(.keepStoreKey(store: store, keyFile: keyFile, seconds: seconds), storeKey: key, startingAgent: true)
    }

    package func forget(store: String) {
        _ = try? client.exchange(.forgetStoreKey(store: store), storeKey: nil, startingAgent: false)
    }
}
#endif
