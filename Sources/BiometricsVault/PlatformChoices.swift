/// Which store a platform configuration uses.
public enum PlatformStoreChoice: String, Sendable, Hashable, CaseIterable, Codable {
    /// The vault service when it answers on the system bus (installed: started by D-Bus activation);
    /// else the Secret Service on the session bus; the encrypted file store only when there is none (no
    /// session bus, nothing listening at its address, no provider owning or activatable for
    /// `org.freedesktop.secrets`). A service, bus or provider that exists but fails (no answer in time) is
    /// `storeUnavailable`, never a switch.
    case auto
    /// The vault service (`biometrics-vault service`): a system service under its own uid that keeps each
    /// user's items and releases a protected one only after its own fingerprint match or password check.
    /// Linux only.
    case service
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
