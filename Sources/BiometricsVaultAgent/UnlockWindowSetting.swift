import BiometricsVaultCore

/// The CLI's config file, `$XDG_CONFIG_HOME/biometrics-vault/config` (else `~/.config/biometrics-vault/config`):
/// one `key = value` per line; `#` starts a comment (to the end of the line); blank lines are skipped. The
/// one key is `unlock-window` (a duration as ``UnlockWindowDuration`` reads it). An unknown key, a line
/// without `=` or an invalid value is reported (``notices``) and ignored; when a key is given twice the
/// later line counts. Another program may have written the file: what a notice repeats of it is shown
/// escaped (``displayed(_:limit:)``), and past ``maximumNotices`` bad lines are counted, not listed.
package struct CLIConfigFile: Equatable, Sendable {
    /// The largest file read; a longer one is reported and ignored as a whole.
    package static let maximumSize = 65_536
    /// Bad lines listed one notice each; the rest are counted in one more notice.
    package static let maximumNotices = 8
    /// The most characters of a key or value a notice repeats.
    package static let maximumShownLength = 64
    package static let unlockWindowKey = "unlock-window"

    /// `unlock-window`: the window's seconds; `nil` when absent, `off`/`0` or invalid.
    package var unlockWindowSeconds: Int?
    /// Whether a valid `unlock-window` line decides (also one that says `off`).
    package var setsUnlockWindow: Bool
    /// What was wrong and ignored, one line each, naming the file and line.
    package var notices: [String]

    package init(unlockWindowSeconds: Int? = nil, setsUnlockWindow: Bool = false, notices: [String] = []) {
        self.unlockWindowSeconds = unlockWindowSeconds
        self.setsUnlockWindow = setsUnlockWindow
        self.notices = notices
    }

    /// The file's path from the environment; `nil` without a usable home directory.
    package static func defaultPath() -> String? {
        BaseDirectory.path("XDG_CONFIG_HOME", orUnderHome: ".config").map { $0 + "/biometrics-vault/config" }
    }

    /// Reads `text`, the contents of the file at `path` (named in the notices).
    package static func parse(_ text: String, path: String) -> CLIConfigFile {
        var file = CLIConfigFile()
        let shownPath = displayed(path, limit: nil)
        var unlisted = 0
        func notice(_ text: @autoclosure () -> String) {
            if file.notices.count < maximumNotices { file.notices.append(text()) } else { unlisted += 1 }
        }
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = rawLine.prefix { $0 != "#" }.trimmingWhitespace()
            if line.isEmpty { continue }
            let place = "\(shownPath):\(index + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                notice("\(place): ignoring a line that is not `key = value`")
                continue
            }
            let key = line[..<equals].trimmingWhitespace(), value = line[line.index(after: equals)...].trimmingWhitespace()
            guard key == unlockWindowKey else {
                notice("\(place): ignoring the unknown key '\(displayed(key))' (the one key is \(unlockWindowKey))")
                continue
            }
            switch UnlockWindowDuration.seconds(String(value)) {
            case .success(let seconds):
                file.unlockWindowSeconds = seconds
                file.setsUnlockWindow = true
            case .failure: notice("\(place): ignoring \(UnlockWindowDurationError(text: displayed(value)))")
            }
        }
        if unlisted > 0 { file.notices.append("\(shownPath): \(unlisted) more lines ignored (not shown)") }
        return file
    }

    /// `text` as a notice may repeat it: characters that could drive a terminal or hide text (C0
    /// controls, line breaks and tabs included, DEL, C1, U+2028/2029, the bidirectional controls) as
    /// `\uXXXX`, and at most `limit` characters, then `...`. Keys, values and the variable come from
    /// files and environments other programs may have written.
    package static func displayed(_ text: some StringProtocol, limit: Int? = maximumShownLength) -> String {
        var shown = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if let limit, count == limit { return shown + "..." }
            count += 1
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C:
                let hex = String(scalar.value, radix: 16)
                shown += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default:
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }
}

/// How long the CLI's unlock window is, and which setting said so: `--unlock-window`, else
/// `$BIOMETRICS_VAULT_UNLOCK_WINDOW`, else `unlock-window` in the config file (``CLIConfigFile``), else off.
/// An invalid environment value or config line is reported (``notices``) and ignored, as if absent.
package struct UnlockWindowSetting: Equatable, Sendable {
    package enum Source: String, Equatable, Sendable {
        case option = "--unlock-window"
        case environment = "$BIOMETRICS_VAULT_UNLOCK_WINDOW"
        case configFile = "config file"
        case none
    }

    package static let environmentVariable = "BIOMETRICS_VAULT_UNLOCK_WINDOW"

    /// The window's seconds; `nil`: windows are off.
    package var seconds: Int?
    /// The setting that decided (``Source/none`` when none is set).
    package var source: Source
    package var notices: [String]

    package init(seconds: Int?, source: Source, notices: [String] = []) {
        self.seconds = seconds
        self.source = source
        self.notices = notices
    }

    /// - Parameters:
    ///   - option: `--unlock-window`, already parsed (`.some(nil)`: `off`); `nil` when not given.
    ///   - environment: the variable's text; `nil` or empty when unset.
    ///   - configFile: the parsed config file; `nil` when there is none.
    package static func resolve(option: Int??, environment: String?, configFile: CLIConfigFile?) -> UnlockWindowSetting {
        if let option { return UnlockWindowSetting(seconds: option, source: .option) }
        var notices: [String] = []
        if let environment, !environment.isEmpty {
            switch UnlockWindowDuration.seconds(environment) {
            case .success(let seconds): return UnlockWindowSetting(seconds: seconds, source: .environment)
            case .failure: notices.append("ignoring $\(environmentVariable): \(UnlockWindowDurationError(text: CLIConfigFile.displayed(environment)))")
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
