import Foundation

/// The built `biometrics-vault` binary in a sandbox of its own (XDG directories, no session bus, a TCTI).
struct CLISandbox {
    let root: URL
    var environment: [String: String]

    init(tcti: String) throws {
        root = URL(fileURLWithPath: "/tmp/bv-tpm-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-tpm-test-bus"
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        environment["BIOMETRICS_VAULT_TPM_TCTI"] = tcti
        self.environment = environment
    }

    var storeDirectory: URL { root.appendingPathComponent("data/biometrics-vault") }

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["BV_CLI_BINARY"] { return URL(fileURLWithPath: path) }
        let testBundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBundle.deletingLastPathComponent().appendingPathComponent("biometrics-vault")
    }

    /// Runs the CLI; `stdin` is its standard input (empty when `nil`). Never on a terminal.
    func run(_ arguments: [String], stdin: String? = nil, tcti: String? = nil) throws -> CLIResult {
        let process = try start(arguments, stdin: stdin, tcti: tcti)
        process.waitUntilExit()
        return result(of: process)
    }

    /// Runs the CLI for at most `seconds`; `nil` (and the process killed) when it is still running then.
    func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String], within seconds: Double) throws -> CLIResult? {
        var sandbox = self
        sandbox.environment.merge(extra) { $1 }
        let process = try sandbox.start(arguments, stdin: stdin)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return result(of: process)
    }

    /// Starts the CLI without waiting (for the kill -9 test).
    func start(_ arguments: [String], stdin: String? = nil, tcti: String? = nil) throws -> Process {
        let input = root.appendingPathComponent("stdin")
        try Data((stdin ?? "").utf8).write(to: input)
        for name in ["stdout", "stderr"] { _ = FileManager.default.createFile(atPath: root.appendingPathComponent(name).path, contents: nil) }
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = environment
        if let tcti { environment["BIOMETRICS_VAULT_TPM_TCTI"] = tcti }
        process.environment = environment
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: root.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: root.appendingPathComponent("stderr"))
        try process.run()
        return process
    }

    func result(of process: Process) -> CLIResult {
        CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: FileManager.default.contents(atPath: root.appendingPathComponent("stdout").path) ?? Data(), as: UTF8.self),
            stderr: String(decoding: FileManager.default.contents(atPath: root.appendingPathComponent("stderr").path) ?? Data(), as: UTF8.self))
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

extension String {
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}
