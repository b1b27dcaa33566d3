import Foundation

/// What a run of the built `biometrics-vault` binary (or another program) printed, and how it ended.
package struct CLIResult: Sendable {
    package var status: Int32
    package var stdout: String
    package var stderr: String

    package init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// A started run whose end the test decides (it may kill it first).
package struct CLIProcess: Sendable {
    package let process: ChildProcess
    let stdout: URL
    let stderr: URL

    package var processIdentifier: Int32 { process.processIdentifier }
    package var isRunning: Bool { process.isRunning }

    /// Waits, suspended, for the end.
    package func waitUntilExit() async throws { try await process.exit() }

    /// What it has printed on stdout so far.
    package var printed: String { CLISandbox.text(of: stdout) }

    /// Waits for the end and returns what the run printed (the exit code, or the number of the signal that ended it).
    package func result() async throws -> CLIResult {
        let exit = try await process.exit()
        return CLIResult(status: exit.code, stdout: CLISandbox.text(of: stdout), stderr: CLISandbox.text(of: stderr))
    }
}

/// One sandbox per test for the built CLI, as a user runs it: its own XDG data/state/config directories (so
/// the file store starts empty), no desktop, no session bus unless a test keeps or adds one.
package struct CLISandbox: Sendable {
    package let root: URL
    /// The environment every run gets.
    package var environment: [String: String]

    package init(keepSessionBus: Bool = false) throws {
        root = TestScratch.directory.appendingPathComponent("bv-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY"] { environment[name] = nil }
        if !keepSessionBus { environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bv-cli-test-bus" }
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        // Never the user's own config file (`unlock-window`).
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["COLUMNS"] = "80"
        self.environment = environment
    }

    /// The file store's directory in this sandbox.
    package var storeDirectory: URL { root.appendingPathComponent("data/biometrics-vault") }

    /// The built binary: beside the test bundle in the build products directory (test targets that run
    /// it depend on the executable, so `swift build --build-tests` builds it), or `$BV_CLI_BINARY`.
    package static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["BV_CLI_BINARY"] { return URL(fileURLWithPath: path) }
        let testBundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBundle.deletingLastPathComponent().appendingPathComponent("biometrics-vault")
    }

    /// Runs the CLI with `arguments`, `stdin` as its standard input (empty when `nil`).
    package func run(_ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        try await run(executable: Self.binary, arguments, stdin: stdin)
    }

    /// Runs any program in this sandbox's environment.
    package func run(executable: URL, _ arguments: [String], stdin: String? = nil) async throws -> CLIResult {
        try await RunSlots.withSlot { try await start(executable: executable, arguments, stdin: stdin).result() }
    }

    /// Runs the CLI for at most `seconds` with `extra` added to the environment; `nil` (and the process
    /// killed) when it is still running then.
    package func run(_ arguments: [String], stdin: String? = nil, environment extra: [String: String], within seconds: Double) async throws -> CLIResult? {
        var sandbox = self
        sandbox.environment.merge(extra) { $1 }
        let started = try await sandbox.start(executable: Self.binary, arguments, stdin: stdin)
        guard try await started.process.exit(within: seconds) != nil else { return nil }
        return try await started.result()
    }

    /// Starts the CLI (or `executable`) without waiting for it.
    package func start(executable: URL = CLISandbox.binary, _ arguments: [String], stdin: String? = nil) async throws -> CLIProcess {
        let id = UUID().uuidString
        let input = root.appendingPathComponent("stdin-\(id)")
        let output = root.appendingPathComponent("stdout-\(id)")
        let errors = root.appendingPathComponent("stderr-\(id)")
        try Data((stdin ?? "").utf8).write(to: input)
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = try await ChildProcess.start(
            executable.path, arguments, environment: environment, replacing: true,
            stdin: .file(input.path), stdout: .file(output.path), stderr: .file(errors.path))
        return CLIProcess(process: process, stdout: output, stderr: errors)
    }

    /// Runs a shell (as root: it needs a mount namespace) in which `library` is hidden, /dev/null bound
    /// over the file the loader finds (its directory differs by architecture), stores and shows a plain
    /// item with the CLI (`$bv`), then runs `more`. Exits 89 to 92: the library is not installed, the
    /// mount failed, the store failed, the show failed.
    package func runHiding(library: String, then more: String = "") async throws -> CLIResult {
        let script = """
            lib=$(/sbin/ldconfig -p | sed -n "s/^[[:space:]]*$1 .*=> //p" | head -n 1)
            [ -n "$lib" ] || { echo "$1 is not installed"; exit 89; }
            mount --bind /dev/null "$(readlink -f "$lib")" || exit 90
            bv="$2"
            printf '{"token":"kept"}' | "$bv" store plain --store file || exit 91
            "$bv" show plain --store file --field token || exit 92
            \(more)
            """
        return try await run(executable: URL(fileURLWithPath: "/usr/bin/unshare"), ["-m", "/bin/sh", "-c", script, "sh", library, Self.binary.path])
    }

    /// A captured file's text. (Not `String(contentsOf:)`, which LeakSanitizer flags in Foundation.)
    package static func text(of url: URL) -> String {
        String(decoding: FileManager.default.contents(atPath: url.path) ?? Data(), as: UTF8.self)
    }

    /// Writes a file in the sandbox and returns its path.
    package func file(_ name: String, _ contents: String) throws -> String {
        let url = root.appendingPathComponent(name)
        try Data(contents.utf8).write(to: url)
        return url.path
    }

    package func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
