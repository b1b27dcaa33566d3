import ArgumentParser
import BiometricsVault
import BiometricsVaultAgent

/// `--store`: where the bytes live.
enum StoreOption: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto
    case service
    case secretService = "secret-service"
    case file

    var choice: PlatformStoreChoice {
        switch self {
        case .auto: .auto
        case .service: .service
        case .secretService: .secretService
        case .file: .file
        }
    }
}

/// `--authenticator`: who says "it is the owner".
enum AuthenticatorOption: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto
    case fprintd
    case pam
    case polkit
    case none

    var choice: PlatformAuthenticatorChoice {
        switch self {
        case .auto: .auto
        case .fprintd: .fprintd
        case .pam: .pam
        case .polkit: .polkit
        case .none: .none
        }
    }
}

/// The flags every verb shares. The root command declares them too, so they may stand anywhere on the
/// line (``BiometricsVaultCommand/options``).
struct GlobalOptions: ParsableArguments {
    @Option(help: "The namespace of the keys (Secret Service attribute `service`).")
    var service: String = VaultConfiguration.defaultService

    @Option(help: "Where credentials live: auto picks the vault service when it answers on the system bus, else the Secret Service on the session bus, else the encrypted file store.")
    var store: StoreOption = .auto

    @Option(help: "Who authenticates the owner: auto uses fprintd when a finger is enrolled; pam / polkit gate protected items by the login password; none stores plainly only.")
    var authenticator: AuthenticatorOption = .auto

    @Flag(help: "Print results (and errors, on stderr) as JSON.")
    var json = false

    @Flag(help: "Also explain on stderr what auto chose and why, with the libraries' error details.")
    var verbose = false

    @Flag(help: "Read the file store's TPM PIN from the first line of stdin instead of the terminal (`key` verbs: one line per PIN, the current one first).")
    var pinStdin = false

    @Flag(help: "Read the file store's passphrase from the first line of stdin instead of the terminal (`key` verbs: one line per passphrase, the current one first).")
    var passphraseStdin = false

    @Option(
        help: ArgumentHelp(
            "Keep protected items of this service open for this terminal for DURATION after one authentication (90, 90s, 15m, 1h; 0 or off: never). Default: $\(UnlockWindowSetting.environmentVariable), else unlock-window in $XDG_CONFIG_HOME/biometrics-vault/config (by default ~/.config/biometrics-vault/config), else off. See `biometrics-vault agent --help`.",
            valueName: "duration"))
    var unlockWindow: UnlockWindowOption?
}

/// `--unlock-window DURATION`: the length of an unlock window (`nil` seconds: off).
struct UnlockWindowOption: ExpressibleByArgument, Equatable, Sendable {
    let seconds: Int?

    init?(argument: String) {
        guard case .success(let seconds) = UnlockWindowDuration.seconds(argument) else { return nil }
        self.seconds = seconds
    }
}

/// `KEY`: the name of one stored credential.
struct KeyArgument: ParsableArguments {
    @Argument(help: "The key the credentials are stored under.")
    var key: String
}

/// Where `store` / `update` read the credentials JSON from. There is no flag that takes a secret.
struct CredentialsInputOptions: ParsableArguments {
    @Option(
        name: .customLong("from-file"),
        help: ArgumentHelp("Read the credentials JSON from this file instead of stdin ('-' is stdin).", valueName: "path"))
    var fromFile: String?
}
