/// The command line as the kernel passed it, and what ArgumentParser cannot be told about it.
enum RawArguments {
    /// The index of the first argument that is not valid UTF-8, if any. Swift decodes argv lossily into
    /// `CommandLine.arguments`, so `a\xffb` and `a\xfeb` would name one item.
    static func firstNonUTF8Index() -> Int? {
        let argv = CommandLine.unsafeArgv
        for index in stride(from: 1, to: Int(CommandLine.argc), by: 1) {
            guard let argument = argv[index] else { continue }
            if String(validatingCString: argument) == nil { return index }
        }
        return nil
    }

    /// Whether `--json` was asked for, for reports made before (or without) parsing.
    static var requestsJSON: Bool { CommandLine.arguments.dropFirst().contains("--json") }

    /// The words ArgumentParser parses: `arguments`, after the verb the program's name stands for.
    /// ArgumentParser reads only the words after the program's name, and git and docker run the helper
    /// links (`git-credential-biometrics-vault get`, `docker-credential-biometrics-vault get`) by name.
    static func arguments(program: String, _ arguments: [String]) -> [String] {
        switch Text.lastPathComponent(program) {
        case GitCredentialVerb.helperName: [GitCredentialVerb.name] + arguments
        case DockerCredentialVerb.helperName: [DockerCredentialVerb.name] + arguments
        default: arguments
        }
    }

    /// A word before `--` that ArgumentParser would read as a cluster of short flags (`-dash` is `-d -a -s
    /// -h`, and `-h` is help: `show -dash` printed help and exited 0). The CLI has no short option but
    /// `-h`, so such a word is a usage error, with the way to pass a key that begins with `-`.
    static func shortOptionCluster(in arguments: [String]) -> String? {
        for word in arguments {
            if word == "--" { return nil }
            if word.hasPrefix("-"), !word.hasPrefix("--"), word.utf8.count > 2 { return word }
        }
        return nil
    }
}

