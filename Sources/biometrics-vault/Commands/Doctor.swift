import ArgumentParser
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultJSON
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BiometricsVaultCommand {
    /// `doctor`: every store and authenticator, usable or not and why, and what `auto` picks.
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Show each store and authenticator, whether it is usable here (and why not), and which one auto picks. Never prompts.",
            discussion: """
                Also shows this terminal's unlock windows (see `agent --help`), asking a running agent only \
                (none is started): off without a window length.
                """)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                var interaction = PlatformInteraction.terminal
                interaction.tpm = TPMSettings.current
                let diagnosis = VaultConfiguration.platformDiagnosis(interaction: interaction)
                let unlockWindow = UnlockWindowHook.state(
                    options: options, service: nil, storeIsService: diagnosis.selected(.store)?.name == "service")
                if options.json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    var text = String(decoding: try encoder.encode(diagnosis), as: UTF8.self)
                    // The diagnosis is one JSON object; the TPM (what `key seal --tpm` would use) joins it.
                    if text.hasSuffix("}") {
                        text.removeLast()
                        text += (text.hasSuffix("{") ? "" : ",") + "\"tpm\":" + TPMDoctor.json().jsonText
                            + ",\"unlockWindow\":" + unlockWindow.json.jsonText + "}"
                    }
                    Console.out(text)
                    return
                }
                Console.out(Self.render(diagnosis))
                Console.out(TPMDoctor.render())
                Console.out(unlockWindow.lines.joined(separator: "\n"))
            }
        }

        static func render(_ diagnosis: PlatformDiagnosis) -> String {
            let titles: [(PlatformComponent.Role, String)] = [
                (.store, "Stores (--store)"),
                (.authenticator, "Biometric authenticators (--authenticator)"),
                (.ownerAuthentication, "Owner authentication (password; --authenticator pam|polkit)"),
            ]
            var lines: [String] = []
            for (role, title) in titles {
                lines.append(title + ":")
                for component in diagnosis.components(role) {
                    let mark = component.isSelected ? "*" : " "
                    let state = component.isUsable ? "usable" : "unusable"
                    let code = component.errorCode.map { "\($0): " } ?? ""
                    lines.append(
                        "  \(mark) \(Text.padded(component.name, to: 15))"
                            + "\(Text.padded(state, to: 9)) \(code)\(component.detail)")
                }
            }
            let store = diagnosis.selected(.store)?.name ?? "none"
            let biometrics = diagnosis.selected(.authenticator).map { selected in
                selected.isUsable ? selected.name : "\(selected.name) (\(selected.errorCode ?? "unusable"): \(selected.detail))"
            } ?? "none (biometrics unavailable: items are stored plainly)"
            let owner = diagnosis.selected(.ownerAuthentication)?.name ?? "none"
            lines.append("auto picks: store \(store); authenticator \(biometrics); owner authentication \(owner)")
            lines.append(sessionLine())
            return lines.joined(separator: "\n")
        }

        /// The line about the session (``SessionAwareAuthenticator`` routes by it).
        static func sessionLine() -> String {
            guard let variable = RemoteSession.variable() else { return "session: local" }
            return "session: remote (\(variable) is set): the fingerprint reader is never waited for; items that accept "
                + "the password ask for it on the terminal, fingerprint-only items fail at once (exit 9)"
        }
    }
}
