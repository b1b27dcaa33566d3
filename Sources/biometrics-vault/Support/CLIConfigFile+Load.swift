#if os(Linux)
import BiometricsVaultAgent
import BiometricsVaultCore

extension CLIConfigFile {
    /// The file at ``defaultPath()``: `nil` when there is none; a file that cannot be read, or is longer than
    /// ``maximumSize``, gives one notice and no setting. The CLI's alone: the library reads no config file.
    static func load() -> CLIConfigFile? {
        guard let path = defaultPath() else { return nil }
        switch AgentSocket.readSmallFile(path, limit: maximumSize) {
        case .success(nil): return nil
        case .success(let text?): return parse(text, path: path)
        case .failure(let error): return CLIConfigFile(notices: ["ignoring the config file: \(UnlockWindowAgentClient.reason(error))"])
        }
    }
}
#endif
