#if os(Linux)
import BiometricsVaultLinuxAuth
#if canImport(FoundationEssentials)
import BiometricsVaultProcess
import FoundationEssentials
#else
import Foundation
#endif
import Glibc

/// The one place the platform default reaches fprintd, PAM and polkit.
enum LinuxAuthAdapter {
    /// How long one fingerprint prompt waits for a finger.
    static let fingerprintTimeout: Duration = .seconds(30)
    /// The PAM service file `biometrics-vault setup` installs.
    static let pamServiceFile = "/etc/pam.d/biometrics-vault"

    /// `.success(detail)` when fprintd has a reader with enrolled fingers for this user. With
    /// `claiming`, also claims and releases the reader once (so a busy reader is reported).
    static func probeFingerprint(claiming: Bool) -> Result<String, VaultError> {
        if claiming {
            let reason = FingerprintAuthenticator.probe()
            if let error = reason.error { return .failure(error) }
            return .success("fingerprint reader ready; fingers enrolled for this user")
        }
        switch FingerprintAuthenticator(owner: nil).availability(for: .biometryAny) {
        case .available: return .success("fingerprint reader ready")
        case .unavailable(let error): return .failure(error)
        }
    }

    /// Runs `body` on a new thread named `fprintd-probe`; false when no thread could be started.
    static func startProbeThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        DedicatedThread.start(name: "fprintd-probe", body) == 0
    }

    static func makeFingerprint(owner: UnavailableAuthenticator.OwnerAuthentication?) -> any Authenticator {
        FingerprintAuthenticator(owner: owner.map(OwnerBridge.init), verifyTimeout: fingerprintTimeout)
    }

    static func probePAM(interaction: PlatformInteraction) -> PlatformComponent {
        // stat(2), as FileManager's `fileExists` does, without creating `FileManager.default` on the
        // start-up path (about 0.05 ms on `show`'s critical path).
        var info = stat()
        guard stat(pamServiceFile, &info) == 0 else {
            return .unusable(
                .ownerAuthentication, "pam",
                VaultError(.passcodeNotSet, underlying: .message("PAM service file \(pamServiceFile) missing (run `biometrics-vault setup` as root)")))
        }
        guard interaction.hasTerminal else {
            return .unusable(
                .ownerAuthentication, "pam",
                VaultError(.interactionNotAllowed, underlying: .message("no terminal to ask for the password on")))
        }
        return .usable(.ownerAuthentication, "pam", "login password on the terminal (PAM service biometrics-vault)")
    }

    static func makePAM(interaction: PlatformInteraction) -> UnavailableAuthenticator.OwnerAuthentication {
        let pam = PAMOwnerAuthenticator { message in
            switch message.style {
            case .promptEchoOff, .promptEchoOn:
                guard let answer = interaction.readSecret(message.text) else { return nil }
                return String(decoding: answer.copyBytes(), as: UTF8.self)
            case .errorMessage, .textInfo:
                interaction.showMessage(message.text)
                return nil
            }
        }
        return .init(
            name: "pam",
            availability: {
                guard interaction.hasTerminal else {
                    return .unavailable(VaultError(.interactionNotAllowed, underlying: .message("no terminal for the PAM password prompt")))
                }
                return .available
            },
            authenticate: { prompt in
                // Without a terminal the conversation could only decline, which PAM reports as a cancel:
                // say what it is, as `doctor` does (a cron job must not read it as a user's cancel).
                guard interaction.hasTerminal else {
                    throw VaultError(.interactionNotAllowed, underlying: .message("no terminal for the PAM password prompt"))
                }
                try await pam.authenticateOwner(prompt: prompt)
            })
    }

    /// polkit: polkitd running, our action installed, and an authentication agent likely (a graphical
    /// session; polkit offers no way to ask whether an agent is registered without prompting).
    static func probePolkit() -> PlatformComponent {
        let status = PolkitOwnerAuthenticator.probe()
        if let error = status.error { return .unusable(.ownerAuthentication, "polkit", error) }
        guard hasGraphicalSession else {
            return .unusable(
                .ownerAuthentication, "polkit",
                VaultError(.interactionNotAllowed, underlying: .message("no polkit authentication agent (no graphical session; pkttyagent can serve a terminal)")))
        }
        return .usable(.ownerAuthentication, "polkit", "the desktop's polkit agent")
    }

    static func makePolkit() -> UnavailableAuthenticator.OwnerAuthentication {
        let polkit = PolkitOwnerAuthenticator()
        return .init(
            name: "polkit",
            availability: { polkit.availability(for: .devicePasscode) },
            authenticate: { prompt in try await polkit.authenticateOwner(prompt: prompt) })
    }

    /// Whether this process runs in a graphical session, where a polkit agent answers (asked at every
    /// platform selection).
    static var hasGraphicalSession: Bool {
        EnvironmentVariable.isSet("WAYLAND_DISPLAY") || EnvironmentVariable.isSet("DISPLAY")
    }
}

/// Hands the platform default's owner authentication to ``FingerprintAuthenticator``.
private struct OwnerBridge: OwnerAuthenticator {
    let owner: UnavailableAuthenticator.OwnerAuthentication

    func authenticateOwner(prompt: PromptText) async throws {
        try await owner.authenticate(prompt)
    }
}
#endif
