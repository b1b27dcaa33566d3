import ArgumentParser
import BiometricsVault

/// `biometrics-vault`: keeps credentials (any JSON value) in the system keychain or behind a fingerprint.
/// Thin commands over the BiometricsVault library; one nested command per verb, in `Commands/`.
///
/// Every command spells its `commandName`: ArgumentParser otherwise derives it from the type name with
/// `String(describing:)` for every command at every start, which in the static binary costs a protocol-
/// conformance scan per command (about 1.5 ms of each run, measured with perf).
@main
struct BiometricsVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "biometrics-vault",
        abstract: "Keep credentials in the system keychain, optionally behind your fingerprint.",
        discussion: """
            Credentials are any JSON value, read from stdin (or --from-file), never from the command line. \
            `show` prints them as JSON; `show KEY --field NAME` prints one raw value for $(...).

            EXAMPLES:
              echo '{"user":"ci","token":"s3cr3t"}' | biometrics-vault store github
              biometrics-vault upgrade github          # protect it with your fingerprint
              TOKEN=$(biometrics-vault show github --field token)
              biometrics-vault doctor                  # what is used here, and why

            \(ExitStatus.helpText)
            """,
        subcommands: [
            Status.self, Store.self, Show.self, Update.self, Upgrade.self, Downgrade.self, Reset.self, List.self,
            Import.self, Doctor.self, Setup.self, PasswordPromptCheck.self,
            Key.self,
        ]
    )
}
