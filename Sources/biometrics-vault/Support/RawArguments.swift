/// The command line as the kernel passed it, before Swift decodes it (lossily) into `CommandLine.arguments`.
enum RawArguments {
    /// The index of the first argument that is not valid UTF-8, if any.
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
}
