/// Which store a platform configuration uses.
public enum PlatformStoreChoice: String, Sendable, Hashable, CaseIterable, Codable {
    /// The Secret Service when a provider answers on the session bus, else the encrypted file store.
    case auto
    /// The freedesktop Secret Service (gnome-keyring, KeePassXC, ...). Linux only.
    case secretService = "secret-service"
    /// The encrypted file store under `$XDG_DATA_HOME/biometrics-vault`.
    case file
}

/// Which authenticator a platform configuration uses.
public enum PlatformAuthenticatorChoice: String, Sendable, Hashable, CaseIterable, Codable {
    /// fprintd when it has a device with enrolled fingers for the user (also while they are locked out
    /// after failed attempts), else no biometrics; owner
    /// authentication by PAM on a terminal, else polkit where an agent answers.
    case auto
    /// The fingerprint reader through fprintd (owner authentication chosen as for `auto`).
    case fprintd
    /// No biometrics; protected items are gated by the login password through PAM (terminal prompt).
    case pam
    /// No biometrics; protected items are gated by the login password through polkit (desktop agent).
    case polkit
    /// No biometrics and no owner authentication: items can only be stored plainly.
    case none
}
