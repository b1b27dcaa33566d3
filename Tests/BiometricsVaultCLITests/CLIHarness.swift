import Foundation
import Testing

/// Runs the built `biometrics-vault` binary, as a user would, and captures what it prints.
struct CLIResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// One sandbox per test: its own XDG data/state directories, so the file store starts empty.
struct CLISandbox: Sendable {
    let root: URL
    /// The environment every run gets: no desktop, no session bus unless a test adds one.
    var environment: [String: String]

    init(keepSessionBus: Bool = false) throws {
        root = TestScratch.directory.appendingPathComponent("bv-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        if !keepSessionBus { environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-cli-test-bus" }
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        environment["COLUMNS"] = "80"
        self.environment = environment
    }

    /// The built binary: beside the test bundle in the build products directory (the test target
    /// depends on the executable, so `swift build --build-tests` / `swift test` build it), or
    /// `$BV_CLI_BINARY`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["BV_CLI_BINARY"] { return URL(fileURLWithPath: path) }
        let testBundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBundle.deletingLastPathComponent().appendingPathComponent("biometrics-vault")
    }

    /// Runs the CLI with `arguments`, `stdin` as its standard input (empty when `nil`).
    func run(_ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        try run(executable: Self.binary, arguments, stdin: stdin)
    }

    /// Runs any program in this sandbox's environment.
    func run(executable: URL, _ arguments: [String], stdin: String? = nil) throws -> CLIResult {
        let id = UUID().uuidString
        let input = root.appendingPathComponent("stdin-\(id)")
        let output = root.appendingPathComponent("stdout-\(id)")
        let errors = root.appendingPathComponent("stderr-\(id)")
        try Data((stdin ?? "").utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: Self.text(of: output),
            stderr: Self.text(of: errors))
    }

    /// A captured file's text. (Not `String(contentsOf:)`, which LeakSanitizer flags in Foundation.)
    static func text(of url: URL) -> String {
        String(decoding: FileManager.default.contents(atPath: url.path) ?? Data(), as: UTF8.self)
    }

    /// Writes a file in the sandbox and returns its path.
    func file(_ name: String, _ contents: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// One directory per test process for every sandbox, removed when the process exits (sandboxes hold test
/// credentials; a test that forgets `remove()` must not leave them in /tmp).
enum TestScratch {
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bv-cli-run-\(getpid())-\(UUID().uuidString.prefix(8))")
        // 0711: tests that run the CLI as the test user chown their own sandbox inside; others cannot list it.
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        atexit { try? FileManager.default.removeItem(at: TestScratch.directory) }
        return url
    }()
}

/// Whether daemon-backed tests must run (CI sets `BV_REQUIRE_DAEMONS=1`): then a missing daemon fails.
var daemonsRequired: Bool { ProcessInfo.processInfo.environment["BV_REQUIRE_DAEMONS"] == "1" }

/// The directory of this test target's sources (golden files live in `Golden/`).
func goldenURL(_ name: String, file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
}

/// The package's root directory (for `Resources/linux`).
func repositoryRoot(file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

extension String {
    /// Parses the text as a JSON object (for `--json` output).
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}

/// A program running on a pty, fed through `script`'s stdin.
final class PTYSession {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    private let buffer = LockedText()

    init(command: String, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        // `exec`: with dash as `script`'s shell, `sh -c` stays the CLI's parent, dies of Ctrl-C itself
        // and `script -e` reports 130, whatever the CLI did with the signal.
        process.arguments = ["-q", "-f", "-e", "-c", "exec " + command, "/dev/null"]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let buffer = buffer
        output.fileHandleForReading.readabilityHandler = { handle in
            buffer.append(handle.availableData)
        }
        try process.run()
    }

    var text: String { buffer.text }

    /// Waits until the terminal shows `marker` (bounded, so a broken prompt fails instead of hanging).
    func waitFor(_ marker: String, seconds: Int = 60) -> Bool {
        for _ in 0..<(seconds * 20) {
            if text.contains(marker) { return true }
            if !process.isRunning { return text.contains(marker) }
            usleep(50_000)
        }
        return false
    }

    /// Waits until `marker` appeared `count` times.
    func waitFor(_ marker: String, count: Int, seconds: Int = 60) -> Bool {
        for _ in 0..<(seconds * 20) {
            if text.components(separatedBy: marker).count > count { return true }
            if !process.isRunning { break }
            usleep(50_000)
        }
        return text.components(separatedBy: marker).count > count
    }

    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    func finish() -> Int32 {
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        try? input.fileHandleForWriting.close()
        return process.terminationStatus
    }
}

final class LockedText: @unchecked Sendable {
    // Safe: every access to `data` holds `lock`.
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.lock(); data.append(more); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return String(decoding: data, as: UTF8.self) }
}

/// `words` as one `sh -c` command line.
func shellQuoted(_ words: [String]) -> String {
    words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
}
