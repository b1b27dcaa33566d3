#if os(Linux)
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

extension SystemdBoxTests {
    /// The Secret Service provider as a user chooses it (Docs/SecretServiceProvider.md): its activation
    /// file linked into the user's own, the session bus of `systemd --user` starts the user unit
    /// `biometrics-vault-secret-service.service` on the first `secret-tool` call.
    @Suite final class ProviderUserUnit {
        let box: SystemdBox
        static let unit = SystemdBox.providerUnit

        init() async throws {
            box = try SystemdBox()
            try await box.ensureInstalled()
        }

        deinit { box.remove() }

        func withProviderChosen(window: Bool = false, _ body: (BoxSessionShell) async throws -> Void) async throws {
            try await box.withProviderChosen(window: window, body)
        }

        /// The unit's state and main pid as `systemctl --user` shows them, through `shell`.
        func unitState(_ shell: BoxSessionShell) async throws -> String {
            let marker = "state-\(UUID().uuidString)"
            try await shell.run("echo \"\(marker)=$(systemctl --user show \(Self.unit) -p ActiveState --value)/$(systemctl --user show \(Self.unit) -p MainPID --value).\"")
            return shell.terminal.text.components(separatedBy: "\(marker)=").last?.components(separatedBy: ".").first ?? ""
        }

        @Test func theFirstSecretToolCallStartsTheUserUnitAndARestartKeepsTheItems() async throws {
            try await withProviderChosen { shell in
                #expect(try await unitState(shell).hasPrefix("inactive/"))
                try await shell.run("printf %s kept-by-the-unit | secret-tool store --label 'Box item' service bv-box-unit")
                let started = try await unitState(shell)
                #expect(started.hasPrefix("active/") && started != "active/0", "\(started)")
                try await shell.run("echo \"looked=$(secret-tool lookup service bv-box-unit).\"")
                #expect(shell.terminal.text.contains("looked=kept-by-the-unit."), "\(shell.terminal.text)")
                // The items are the vault service's: a restart of the provider finds them.
                try await shell.run("systemctl --user restart \(Self.unit)")
                let restarted = try await unitState(shell)
                #expect(restarted.hasPrefix("active/") && restarted != started, "\(started) then \(restarted)")
                try await shell.run("echo \"again=$(secret-tool lookup service bv-box-unit).\"")
                #expect(shell.terminal.text.contains("again=kept-by-the-unit."), "\(shell.terminal.text)")
                try await shell.run("secret-tool clear service bv-box-unit")
            }
        }

        /// With unlock windows set, a protected item read on one terminal asks once; the session's `Lock`
        /// (`loginctl lock-session`) closes the provider's window, and the next read asks again.
        @Test func theSessionsLockClosesTheProvidersWindows() async throws {
            try await box.enrollOnly(box.user, finger: SystemdBox.finger)
            try await withProviderChosen(window: true) { shell in
                // Storing the protected item starts the provider and asks; that client's connection is
                // older than the provider, so it opens no window (Docs/SecretServiceProvider.md).
                #expect(try await shell.run(
                    "printf %s behind-the-provider | secret-tool store --label 'Box protected' biometrics-vault:policy biometryAny service bv-box-window"))
                let lookup = "echo \"read=$(secret-tool lookup service bv-box-window).\""
                #expect(try await shell.run(lookup), "the client that started the provider opened a window")
                #expect(try await !shell.run(lookup), "a read inside the provider's window was asked")
                try await box.run(["loginctl", "lock-session", shell.id])
                var asked = false
                for _ in 0..<50 where !asked {
                    asked = try await shell.run(lookup)
                    if !asked { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(asked, "the window stayed open after the session's Lock")
                #expect(try await !shell.run(lookup), "the window the read after the Lock opened was not used")
                #expect(shell.terminal.text.components(separatedBy: "read=behind-the-provider.").count - 1 >= 3, "\(shell.terminal.text)")
                try await shell.run("secret-tool clear service bv-box-window")
            }
            _ = try? await box.run(["fprintd-delete", box.user])
        }
    }
}
#endif
