import BiometricsVault

/// Which store to start connecting to before ArgumentParser runs, so that parsing the command line
/// (about 2 ms of first-use runtime work in the static binary) overlaps the Secret Service connection and
/// its key exchange instead of preceding them. Measured in Docs/Benchmarks.md. Not for the `show` lines
/// ``DirectParse`` reads: their parse is too cheap to hide anything behind a second thread.
///
/// A guess from the raw words, never a decision: ``Session`` still selects the store from the parsed
/// options, and only waits for this connection when it selects the same one. A wrong guess costs a
/// connection not used, or no overlap; it cannot change what a command does.
enum StorePreparation {
    /// The verbs that open the store (through ``Session``). Spelled out rather than read from each
    /// command's `configuration`, which would build twelve configurations before the connection starts;
    /// `StorePreparationTests.theVerbsAreCommands` catches a renamed verb.
    ///
    /// Arrays, not sets: this runs before the connection starts, and a `Set<String>`'s first use makes the
    /// runtime scan every protocol conformance in the binary to check `String: Hashable`.
    static let verbs: [String] = [
        "status", "store", "show", "update", "upgrade", "downgrade", "reset", "list", "import", "git-credential",
        "docker-credential", "exec", "clear-lockout",
    ]

    /// Words after which ArgumentParser prints text instead of running the verb.
    static let helpWords: [String] = ["-h", "--help", "help", "--version", "--generate-completion-script"]

    /// The store choice to prepare for `arguments` (the command line after ``CommandLineRewriting``,
    /// which puts the verb first), or `nil` when the command will not open a store, asks for help, or
    /// `--store` names something this cannot read.
    static func choice(for arguments: [String]) -> PlatformStoreChoice? {
        guard let verb = arguments.first, verbs.contains(verb) else { return nil }
        var choice = PlatformStoreChoice.auto
        var index = arguments.index(after: arguments.startIndex)
        while index < arguments.endIndex {
            let word = arguments[index]
            if word == "--" { break }  // the rest are operands (exec's command line)
            if helpWords.contains(word) || word.hasPrefix("--generate-completion-script=") { return nil }
            if word == "--store" || word.hasPrefix("--store=") {
                let value: String
                if word == "--store" {
                    index += 1
                    guard index < arguments.endIndex else { return nil }
                    value = arguments[index]
                } else {
                    value = String(word.dropFirst("--store=".count))
                }
                guard let named = StoreOption(rawValue: value) else { return nil }
                choice = named.choice
            }
            index += 1
        }
        return choice
    }

    /// Starts the connection for `arguments`, if any (see ``choice(for:)``).
    static func start(for arguments: [String]) {
        guard let choice = choice(for: arguments) else { return }
        VaultConfiguration.prepareStore(choice)
    }
}
