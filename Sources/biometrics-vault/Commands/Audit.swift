import ArgumentParser
import BiometricsVault
import BiometricsVaultJSON
#if canImport(Glibc)
import Glibc
#endif

extension BiometricsVaultCommand {
    /// `audit`: the vault service's audit entries of the calling user.
    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "audit",
            abstract: "Show the vault service's audit log of your own reads, writes, deletes, refusals and unlock windows.",
            discussion: "The service keeps one log per user; each entry names the time, the calling process (its name, argv[0] and parents, as the process names itself) and the item, never a secret. --json gives the entries as a JSON array.")

        @OptionGroup var options: GlobalOptions

        @Option(help: ArgumentHelp("Only entries this recent: a number with s, m, h or d (default: every entry).", valueName: "duration"))
        var since: AuditSince?

        func run() async throws {
            try await Console.run(options) {
                #if os(Linux)
                let start = since.map { Int64(time(nil)) - $0.seconds } ?? 0
                let entries = try VaultServiceControls.audit(since: start)
                let values = entries.compactMap { try? JSONValue.parse(Array($0.utf8)) }
                Console.emit(options, json: .array(values), text: values.isEmpty ? nil : values.map(Self.line).joined(separator: "\n"))
                #else
                throw VaultError(.storeUnavailable, underlying: .message("the vault service runs on Linux only"))
                #endif
            }
        }

        /// One entry as a line: time (UTC), event, item, result, and the program with its parents.
        static func line(_ entry: JSONValue) -> String {
            guard case .object(let members) = entry else { return entry.jsonText }
            func field(_ name: String) -> String {
                switch members.first(where: { $0.name.value == name })?.value {
                case .string(let text)?: Console.terminalSafe(text.value, escapingLineBreaks: true)
                case .number(let number)?: number.literal
                case .array(let items)?: items.compactMap { if case .string(let text) = $0 { text.value } else { nil } }.joined(separator: " < ")
                default: ""
                }
            }
            var when = ""
            if let seconds = Int(field("time")) {
                var value = time_t(seconds)
                var parts = tm()
                gmtime_r(&value, &parts)
                func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
                let date: String = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
                let clock: String = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
                when = date + "T" + clock + "Z"
            }
            let program = [field("program"), field("parents")].filter { !$0.isEmpty }.joined(separator: " < ")
            return [when, field("event"), field("item"), field("result"), "pid \(field("pid")) \(program)"]
                .filter { !$0.isEmpty }.joined(separator: "  ")
        }
    }
}

/// `--since`: a number of seconds, minutes, hours or days (`90s`, `15m`, `2h`, `7d`).
struct AuditSince: ExpressibleByArgument, Sendable {
    let seconds: Int64

    init?(argument: String) {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = argument.last.flatMap({ units[$0] }) else { return nil }
        let digits = argument.dropLast()
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int64(digits) else { return nil }
        seconds = count * unit
    }
}
