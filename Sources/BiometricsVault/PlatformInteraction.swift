import BiometricsVaultCore
import BiometricsVaultTPM

/// Which secret opens the file store (``PlatformInteraction/readStoreSecret``).
package enum StoreSecretKind: Sendable, Hashable {
    /// The passphrase that wraps the store's key (`key passphrase`).
    case passphrase
    /// The PIN the TPM checks before it unseals the store's key (`key seal --tpm --pin`).
    case tpmPIN
}

/// How a platform configuration talks to the user, for the prompts the platform itself does not draw
/// (a PAM conversation on a terminal).
public struct PlatformInteraction: Sendable {
    /// Whether the process can prompt on its controlling terminal.
    public var hasTerminal: Bool
    /// Reads one secret answer (a password) without echo, after showing `prompt`. `nil` means cancelled
    /// (Ctrl-C, Ctrl-D, no terminal). The returned bytes are zeroed when released.
    public var readSecret: @Sendable (_ prompt: String) -> SecretBytes?
    /// Shows an informational line from the authentication stack (PAM text info / error messages).
    public var showMessage: @Sendable (_ text: String) -> Void
    /// Reads the secret that opens the file store (its passphrase, or the PIN of its TPM-sealed key).
    /// By default the same as ``readSecret``; the CLI may take it from stdin instead.
    package var readStoreSecret: @Sendable (_ kind: StoreSecretKind, _ prompt: String) -> SecretBytes?
    /// Whether the store may run a confirmation its provider asks for (a Secret Service prompt object:
    /// gnome-keyring's unlock dialog, KWallet's wallet password). `false` for a caller that must not
    /// interact (a status line): `Prompt()` is never called, and an operation that needs it is
    /// `storeLocked` at once. KWallet reports even an open wallet locked until some client unlocks it,
    /// so such a caller may see `storeLocked` where a prompting one would not.
    public var allowsStorePrompts: Bool = true
    /// Where the file store's key, once unlocked with its passphrase or TPM PIN, is kept for the next
    /// processes (the unlock-window agent: ``UnlockWindows/storeKeyKeeper(seconds:startsAgent:)``), and asked for before the
    /// secret is. `nil` (the default): every process asks.
    public var storeKeyKeeper: (any StoreKeyKeeper)? = nil
    /// The unlock window, in seconds, that a prompt of the vault service opens for this process's
    /// terminal session (Linux; `nil` for none). The service keeps it and decides who is inside it.
    public var unlockWindowSeconds: Int? = nil
    /// The TPM that seals the file store's key, when it is sealed (`key seal --tpm`): by default the
    /// kernel's resource manager, 15 s per operation.
    public var tpm = TPMConfiguration()

    public init(
        hasTerminal: Bool,
        readSecret: @escaping @Sendable (_ prompt: String) -> SecretBytes?,
        showMessage: @escaping @Sendable (_ text: String) -> Void
    ) {
        self.init(hasTerminal: hasTerminal, readSecret: readSecret, showMessage: showMessage, readStoreSecret: nil)
    }

    package init(
        hasTerminal: Bool,
        readSecret: @escaping @Sendable (_ prompt: String) -> SecretBytes?,
        showMessage: @escaping @Sendable (_ text: String) -> Void,
        readStoreSecret: (@Sendable (_ kind: StoreSecretKind, _ prompt: String) -> SecretBytes?)?
    ) {
        self.hasTerminal = hasTerminal
        self.readSecret = readSecret
        self.showMessage = showMessage
        self.readStoreSecret = readStoreSecret ?? { _, prompt in readSecret(prompt) }
    }

    /// Prompts on the controlling terminal (`/dev/tty`) with echo off, when the process has one.
    public static var terminal: PlatformInteraction {
        PlatformInteraction(
            hasTerminal: TerminalPrompt.isAvailable,
            readSecret: { TerminalPrompt.readSecret(prompt: $0) },
            showMessage: { TerminalPrompt.show($0) })
    }

    /// Never prompts (for daemons and tests): every secret question is answered "cancelled".
    public static let noninteractive = PlatformInteraction(
        hasTerminal: false, readSecret: { _ in nil }, showMessage: { _ in })
}
