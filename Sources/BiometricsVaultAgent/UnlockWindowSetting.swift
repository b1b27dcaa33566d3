import BiometricsVaultCore

/// The CLI's config file, `$XDG_CONFIG_HOME/biometrics-vault/config` (else `~/.config/biometrics-vault/config`):
/// one `key = value` per line; `#` starts a comment (to the end of the line); blank lines are skipped. The
/// one key is `unlock-window` (a duration as ``UnlockWindowDuration`` reads it). An unknown key, a line
/// without `=` or an invalid value is reported (``notices``) and ignored; when a key is given twice the
/// later line counts.
public struct CLIConfigFile: Equatable, Sendable {
    /// The largest file read; a longer one is reported and ignored as a whole.
    public static let maximumSize = 65_536
    public static let unlockWindowKey = "unlock-window"

    /// `unlock-window`: the window's seconds; `nil` when absent, `off`/`0` or invalid.
    public var unlockWindowSeconds: Int?
    /// Whether a valid `unlock-window` line decides (also one that says `off`).
    public var setsUnlockWindow: Bool
    /// What was wrong and ignored, one line each, naming the file and line.
    public var notices: [String]

    public init(unlockWindowSeconds: Int? = nil, setsUnlockWindow: Bool = false, notices: [String] = []) {
        self.unlockWindowSeconds = unlockWindowSeconds
        self.setsUnlockWindow = setsUnlockWindow
        self.notices = notices
    }

    /// The file's path from the environment; `nil` without a usable home directory.
    public static func defaultPath() -> String? {
        BaseDirectory.path("XDG_CONFIG_HOME", orUnderHome: ".config").map { $0 + "/biometrics-vault/config" }
    }

    /// Reads `text`, the contents of the file at `path` (named in the notices).
    public static func parse(_ text: String, path: String) -> CLIConfigFile {
        var file = CLIConfigFile()
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = rawLine.prefix { $0 != "#" }.trimmingWhitespace()
            if line.isEmpty { continue }
            let place = "\(path):\(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                file.notices.append("\(place): ignoring a line that is not `key = value`")
                continue
            }
            let key = line[..<equals].trimmingWhitespace(), value = line[line.index(after: equals)...].trimmingWhitespace()
            guard key == unlockWindowKey else {
                file.notices.append("\(place): ignoring the unknown key '\(key)' (the one key is \(unlockWindowKey))")
                continue
            }
            switch UnlockWindowDuration.seconds(String(value)) {
            case .success(let seconds):
                file.unlockWindowSeconds = seconds
                file.setsUnlockWindow = true
            case .failure(let error): file.notices.append("\(place): ignoring \(error)")
            }
        }
        return file
    }
}

/// How long the CLI's unlock window is, and which setting said so: `--unlock-window`, else
/// `$BIOMETRICS_VAULT_UNLOCK_WINDOW`, else `unlock-window` in the config file (``CLIConfigFile``), else off.
/// An invalid environment value or config line is reported (``notices``) and ignored, as if absent.
public struct UnlockWindowSetting: Equatable, Sendable {
    public enum Source: String, Equatable, Sendable {
        case option = "--unlock-window"
        case environment = "$BIOMETRICS_VAULT_UNLOCK_WINDOW"
        case configFile = "config file"
        case none
    }

    public static let environmentVariable = "BIOMETRICS_VAULT_UNLOCK_WINDOW"

    /// The window's seconds; `nil`: windows are off.
    public var seconds: Int?
    /// The setting that decided (``Source/none`` when none is set).
    public var source: Source
    public var notices: [String]

    public init(seconds: Int?, source: Source, notices: [String] = []) {
        self.seconds = seconds
        self.source = source
        self.notices = notices
    }

    /// - Parameters:
    ///   - option: `--unlock-window`, already parsed (`.some(nil)`: `off`); `nil` when not given.
    ///   - environment: the variable's text; `nil` or empty when unset.
    ///   - configFile: the parsed config file; `nil` when there is none.
    public static func resolve(option: Int??, environment: String?, configFile: CLIConfigFile?) -> UnlockWindowSetting {
        if let option { return UnlockWindowSetting(seconds: option, source: .option) }
        var notices: [String] = []
        if let environment, !environment.isEmpty {
            switch UnlockWindowDuration.seconds(environment) {
            case .success(let seconds): return UnlockWindowSetting(seconds: seconds, source: .environment)
            case .failure(let error): notices.append("ignoring $\(environmentVariable): \(error)")
            }
        }
        guard let configFile else { return UnlockWindowSetting(seconds: nil, source: .none, notices: notices) }
        notices += configFile.notices
        return UnlockWindowSetting(
            seconds: configFile.unlockWindowSeconds, source: configFile.setsUnlockWindow ? .configFile : .none, notices: notices)
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
