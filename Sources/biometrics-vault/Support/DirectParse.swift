import BiometricsVault

/// `show KEY` in its plain spellings, parsed without ArgumentParser.
///
/// ArgumentParser finds a command's options by reflection, and in the static binary that first-use
/// runtime work (metadata, protocol-conformance scans, the completion-script check that parses the line
/// against two more pseudo-commands) costs about 1.5 ms of CPU per run: more than the read itself. `show`
/// is the CLI's main job, run by scripts in `$(...)`, so its plainest lines are read here, into the same
/// ``ShowRequest`` that ArgumentParser's ``BiometricsVaultCommand/Show`` runs, without creating any
/// ArgumentParser type.
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

    /// What the line gave, one stored property per option. Not a `Dictionary` and a `Set` keyed by the
    /// enums: their first use makes the runtime scan every protocol conformance in the binary (for
    /// `Hashable`), which is what this parser exists to avoid.
    private struct Words {
        var service, store, authenticator, field: String?
        var json = false, verbose = false, pinStdin = false, passphraseStdin = false

        subscript(option: ValueOption) -> String? {
            get {
                switch option {
                case .service: service
                case .store: store
                case .authenticator: authenticator
                case .field: field
                }
            }
            set {
                switch option {
                case .service: service = newValue
                case .store: store = newValue
                case .authenticator: authenticator = newValue
                case .field: field = newValue
                }
            }
        }

        /// Sets `flag`; false when it was set already.
        mutating func set(_ flag: FlagOption) -> Bool {
            func setOnce(_ value: inout Bool) -> Bool {
                defer { value = true }
                return !value
            }
            switch flag {
            case .json: return setOnce(&json)
            case .verbose: return setOnce(&verbose)
            case .pinStdin: return setOnce(&pinStdin)
            case .passphraseStdin: return setOnce(&passphraseStdin)
            }
        }
    }

    /// For `arguments` as ``CommandLineRewriting`` left them (the verb first): `show KEY` with any of
    /// `--service S`, `--store S`, `--authenticator A`, `--field F` and the global flags, each at most
    /// once, in any order; `nil` for anything else.
    static func show(_ arguments: [String]) -> ShowRequest? {
        guard arguments.first == "show" else { return nil }
        var words = Words()
        var key: String?
        var index = 1
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if let option = ValueOption(rawValue: word) {
                guard words[option] == nil, index < arguments.count, isPlain(arguments[index]) else { return nil }
                words[option] = arguments[index]
                index += 1
            } else if let flag = FlagOption(rawValue: word) {
                guard words.set(flag) else { return nil }
            } else {
                guard key == nil, isPlain(word) else { return nil }
                key = word
            }
        }
        guard let key else { return nil }
        var options = PlainGlobalOptions()
        options.service = words.service ?? VaultConfiguration.defaultService
        guard let store = StoreOption(rawValue: words.store ?? StoreOption.auto.rawValue),
            let authenticator = AuthenticatorOption(rawValue: words.authenticator ?? AuthenticatorOption.auto.rawValue)
        else { return nil }
        options.store = store
        options.authenticator = authenticator
        options.json = words.json
        options.verbose = words.verbose
        options.pinStdin = words.pinStdin
        options.passphraseStdin = words.passphraseStdin
        return ShowRequest(options: options, key: key, field: words.field)
    }

    /// A word ArgumentParser reads as a value, never as an option or the `--` terminator.
    private static func isPlain(_ word: String) -> Bool {
        !word.isEmpty && !word.hasPrefix("-")
    }
}
