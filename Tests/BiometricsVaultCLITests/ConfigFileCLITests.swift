#if os(Linux)
import BiometricsVault
import BiometricsVaultAgent
import BiometricsVaultTestSupport
import Foundation
import Glibc
import Testing

/// The config file and `$BIOMETRICS_VAULT_UNLOCK_WINDOW` as another program of the user may leave them:
/// a FIFO or a directory instead of a file, control characters in keys and values, thousands of bad lines.
/// Every command still runs, and what it says about them is a few lines of plain text.
@Suite(.onTestThreads) struct ConfigFileCLITests {
    static let plain = ["--store", "file", "--authenticator", "none"]
    /// How many bad lines the parser lists before it only counts them.
    static let listedNotices = 8
    let sandbox: CLISandbox
    let config: URL

    init() throws {
        sandbox = try CLISandbox()
        let directory = sandbox.root.appendingPathComponent("config/biometrics-vault")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        config = directory.appendingPathComponent("config")
    }

    /// The commands that read the config file on every run, with their stdin.
    static let commands: [(arguments: [String], stdin: String)] = [
        (["status", "item"] + plain, ""),
        (["show", "item"] + plain, ""),
        (["list"] + plain, ""),
        (["docker-credential", "get"] + plain, "127.0.0.1:5000\n"),
        (["git-credential", "get"] + plain, "protocol=https\nhost=example.com\n\n"),
    ]

    /// Opening a FIFO for reading waits for a writer: every command hung before its first line.
    @Test("a FIFO or a directory as the config file is reported, never waited on", arguments: ["fifo", "directory"])
    func aConfigFileThatIsNoRegularFileIsIgnored(kind: String) async throws {
        defer { sandbox.remove() }
        if kind == "fifo" {
            try #require(mkfifo(config.path, 0o600) == 0)
        } else {
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: false)
        }
        for (arguments, stdin) in Self.commands {
            let result = try await sandbox.run(arguments, stdin: stdin, environment: [:], within: 20)
            let finished = try #require(result, "\(arguments.prefix(2)) still ran after 20 s")
            #expect(finished.stderr.contains("ignoring the config file"), "\(arguments.prefix(2)): \(finished.stderr)")
            #expect(finished.stderr.contains("not a regular file"), "\(arguments.prefix(2)): \(finished.stderr)")
            #expect(finished.status != 64 && finished.status < 128, "\(arguments.prefix(2)): \(finished.status)")
        }
    }

    /// Characters that drive a terminal: ESC (CSI, OSC), BEL, NUL, C1, bidi overrides, a line break.
    static let hostile = "5m\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\u{202E}txt"

    @Test func controlCharactersInTheVariableAreShownEscaped() async throws {
        defer { sandbox.remove() }
        let result = try await sandbox.run(
            ["status", "item"] + Self.plain, environment: ["BIOMETRICS_VAULT_UNLOCK_WINDOW": Self.hostile + "\nsecond line"], within: 20)
        let finished = try #require(result)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.stderr.contains("ignoring $BIOMETRICS_VAULT_UNLOCK_WINDOW"), "\(finished.stderr)")
        #expect(finished.stderr.contains("\\u001b]0;owned\\u0007"), "\(finished.stderr)")
        Self.expectNoControlCharacters(finished.stderr)
        #expect(finished.stderr.split(separator: "\n").count == 1, "\(finished.stderr)")
    }

    @Test func controlCharactersInConfigKeysAndValuesAreShownEscaped() async throws {
        defer { sandbox.remove() }
        let text = "unlock-window = \(Self.hostile)\n\u{1B}[31mcolour\u{0} = x\u{1B}]8;;http://evil\u{07}\nno equals \u{1B}[2J\n"
        try Data(text.utf8).write(to: config)
        let result = try await sandbox.run(["status", "item"] + Self.plain, environment: [:], within: 20)
        let finished = try #require(result)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.stderr.split(separator: "\n").count == 3, "\(finished.stderr)")
        #expect(finished.stderr.contains("\\u001b[31mcolour\\u0000"), "\(finished.stderr)")
        Self.expectNoControlCharacters(finished.stderr)
    }

    /// 64 KiB of one-character lines: 32,768 bad lines, each once a line on stderr, on every command.
    @Test func manyBadLinesGiveAFewNoticeLines() async throws {
        defer { sandbox.remove() }
        try Data(String(repeating: "x\n", count: CLIConfigFile.maximumSize / 2).utf8).write(to: config)
        for (arguments, stdin) in Self.commands {
            let result = try await sandbox.run(arguments, stdin: stdin, environment: [:], within: 20)
            let finished = try #require(result)
            let lines = finished.stderr.split(separator: "\n")
            let notices = lines.filter { $0.contains(config.path) }
            #expect(!notices.isEmpty && notices.count <= Self.listedNotices + 1, "\(arguments.prefix(2)): \(notices.count) lines")
            #expect(finished.stderr.contains("32760 more"), "\(arguments.prefix(2)): \(finished.stderr.suffix(300))")
        }
    }

    @Test("bad lines past the first few are counted, not listed", arguments: [1, 8, 9, 1000])
    func noticesAreBounded(badLines: Int) {
        let text = String(repeating: "x\n", count: badLines) + "unlock-window = 2m\n"
        let file = CLIConfigFile.parse(text, path: "/c")
        #expect(file.unlockWindowSeconds == 120 && file.setsUnlockWindow)
        let listed = min(badLines, Self.listedNotices)
        #expect(file.notices.count == listed + (badLines > listed ? 1 : 0), "\(file.notices)")
        if badLines > listed {
            #expect(file.notices.last == "/c: \(badLines - listed) more lines ignored (not shown)", "\(file.notices)")
        }
    }

    /// No byte below 0x20 except the line feeds between notices, no DEL, no C1, no bidi control.
    static func expectNoControlCharacters(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let found = text.unicodeScalars.filter { scalar in
            switch scalar.value {
            case 0x0A: false
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: true
            default: false
            }
        }
        #expect(found.isEmpty, "raw control characters: \(found.map { String($0.value, radix: 16) })", sourceLocation: sourceLocation)
    }
}
#endif
