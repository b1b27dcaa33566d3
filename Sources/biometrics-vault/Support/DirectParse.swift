import BiometricsVault

/// `show KEY` in its plain spellings, parsed without ArgumentParser.
///
/// ArgumentParser finds a command's options by reflection, and in the static binary that first-use
/// runtime work (metadata, protocol-conformance scans, the completion-script check that parses the line
/// against two more pseudo-commands) costs about 1.5 ms of CPU per run: more than the read itself. `show`
/// is the CLI's main job, run by scripts in `$(...)`, so its plainest lines are read here, into the same
/// ``BiometricsVaultCommand/Show`` that ArgumentParser would build, and run by the same code.
///
/// Anything this does not recognise exactly (help, `--name=value`, a value or key that starts with `-`,
/// a repeated or unknown option, a second operand, an invalid choice) returns `nil`, and ArgumentParser
/// parses the line as before, with its own usage errors. `DirectParseTests` checks that every line read
/// here gives the command ArgumentParser gives, and that every property of the command is set here.
enum DirectParse {
    /// The options `show` takes a value for.
    private enum ValueOption: String {
        case service = "--service", store = "--store", authenticator = "--authenticator", field = "--field"
    }

    /// The flags `show` takes (``GlobalOptions``).
    private enum FlagOption: String {
        case json = "--json", verbose = "--verbose", pinStdin = "--pin-stdin", passphraseStdin = "--passphrase-stdin"
    }

    /// For `arguments` as ``CommandLineRewriting`` left them (the verb first): `show KEY` with any of
    /// `--service S`, `--store S`, `--authenticator A`, `--field F` and the global flags, each at most
    /// once, in any order; `nil` for anything else.
    static func show(_ arguments: [String]) -> BiometricsVaultCommand.Show? {
        guard arguments.first == "show" else { return nil }
        var values: [ValueOption: String] = [:]
        var flags: Set<FlagOption> = []
        var key: String?
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if let option = ValueOption(rawValue: word) {
                guard values[option] == nil, index < arguments.count, isPlain(arguments[index]) else { return nil }
                values[option] = arguments[index]
                index += 1
            } else if let flag = FlagOption(rawValue: word) {
                guard flags.insert(flag).inserted else { return nil }
            } else {
                guard key == nil, isPlain(word) else { return nil }
                key = word
            }
        }
        guard let key else { return nil }
        var options = GlobalOptions()
        options.service = values[.service] ?? VaultConfiguration.defaultService
        guard let store = StoreOption(rawValue: values[.store] ?? StoreOption.auto.rawValue),
            let authenticator = AuthenticatorOption(rawValue: values[.authenticator] ?? AuthenticatorOption.auto.rawValue)
        else { return nil }
        options.store = store
        options.authenticator = authenticator
        options.json = flags.contains(.json)
        options.verbose = flags.contains(.verbose)
        options.pinStdin = flags.contains(.pinStdin)
        options.passphraseStdin = flags.contains(.passphraseStdin)
        var item = KeyArgument()
        item.key = key
        var show = BiometricsVaultCommand.Show()
        show.options = options
        show.item = item
        show.field = values[.field]
        return show
    }

    /// A word ArgumentParser reads as a value, never as an option or the `--` terminator.
    private static func isPlain(_ word: String) -> Bool {
        !word.isEmpty && !word.hasPrefix("-")
    }
}
