import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON

extension BiometricsVaultCommand {
    /// Hidden test hook: asks for a password exactly as PAM owner authentication does (on /dev/tty,
    /// without echo) and reports only how many bytes arrived. Takes no secret; prints none.
    struct PasswordPromptCheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-password-prompt",
            abstract: "Check the terminal password prompt: asks for a password without echo and prints only its length.",
            shouldDisplay: false)

        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await Console.run(options) {
                guard let answer = PlatformInteraction.terminal.readSecret("Password: ") else {
                    throw VaultError(.userCancel, underlying: .message("no password entered"))
                }
                Console.emit(options, json: .object(["bytes": .integer(Int64(answer.count))]), text: "read \(answer.count) bytes")
            }
        }
    }
}
