import BiometricsVaultTestSupport
import Foundation
import Testing

/// A real software TPM (swtpm) of this test's own, on a Unix socket in its own state directory. Two
/// instances are two different TPMs; restarting one on the same directory is the same TPM again.
final class SoftwareTPM {
    let directory: URL
    var tcti: String { "swtpm:path=\(socket)" }
    private var socket: String { directory.appendingPathComponent("tpm.sock").path }

    static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["BV_SWTPM"], !path.isEmpty { return path }
        return ["/usr/bin/swtpm", "/usr/local/bin/swtpm"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether swtpm and tpm2-tools are here.
    static var isAvailable: Bool {
        binary != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_getcap")
    }

    /// The tests that need them run where they are, and fail where daemons are mandatory (CI); elsewhere
    /// they skip visibly instead of passing without a TPM.
    static let need = DaemonNeed("swtpm and tpm2-tools", remedy: "scripts/setup/40-swtpm.sh", problem: isAvailable ? nil : "not installed")
    static let missing: Comment = "swtpm / tpm2-tools missing (run scripts/setup/40-swtpm.sh)"

    init() async throws {
        directory = URL(fileURLWithPath: "/tmp/bv-tpm-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("state"), withIntermediateDirectories: true)
        try await start()
    }

    /// The running swtpm: a child of the test process, not `--daemon`, so that its end is known.
    private var process: ChildProcess?

    func start() async throws {
        guard let binary = Self.binary else { throw SoftwareTPMError.missing }
        let process = try await ChildProcess.start(binary, [
            "socket", "--tpm2", "--tpmstate", "dir=\(directory.appendingPathComponent("state").path)",
            "--server", "type=unixio,path=\(socket)", "--ctrl", "type=unixio,path=\(socket).ctrl",
            "--flags", "not-need-init,startup-clear",
        ])
        self.process = process
        // Ready when both sockets exist (bounded: a broken swtpm fails the test instead of hanging it).
        for _ in 0..<500 {
            if FileManager.default.fileExists(atPath: socket), FileManager.default.fileExists(atPath: socket + ".ctrl") { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SoftwareTPMError.failed("swtpm did not come up")
    }

    /// Stops the TPM (the control channel's shutdown, as `swtpm_ioctl -s`; SIGKILL if it ignores that:
    /// swtpm does not act on SIGTERM while it waits for a client) and waits until it is gone.
    func stop() async {
        guard let process else { return }
        process.signal(SIGCONT)
        _ = try? await run("/usr/bin/swtpm_ioctl", ["-s", "--unix", socket + ".ctrl"])
        _ = try? await process.exit(within: 3)
        self.process = nil
        try? FileManager.default.removeItem(atPath: socket)
        try? FileManager.default.removeItem(atPath: socket + ".ctrl")
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the swtpm process: a TPM that no longer answers, without
    /// closing its sockets.
    func pause(_ paused: Bool) {
        process?.signal(paused ? SIGSTOP : SIGCONT)
    }

    /// Kills it (its reaping is swift-subprocess's, in the background) and removes its state directory.
    func remove() {
        process?.signal(SIGCONT)
        process?.signal(SIGKILL)
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a tpm2-tools command against this TPM.
    func tools(_ tool: String, _ arguments: [String]) async throws -> ProcessOutput {
        try await Self.tools(tool, arguments, tcti: tcti)
    }

    static func tools(_ tool: String, _ arguments: [String], tcti: String) async throws -> ProcessOutput {
        try await run("/usr/bin/" + tool, arguments, environment: ["TPM2TOOLS_TCTI": tcti, "TSS2_LOG": "all+NONE"])
    }

    /// `tpm2_getcap handles-transient`'s output (empty when no transient object is loaded).
    static func transientHandles(tcti: String) async throws -> String {
        try await tools("tpm2_getcap", ["handles-transient"], tcti: tcti).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// TPM2_PT_LOCKOUT_COUNTER and inLockout, as tpm2-tools reads them.
    static func lockoutState(tcti: String) async throws -> (counter: Int, inLockout: Bool) {
        let text = try await tools("tpm2_getcap", ["properties-variable"], tcti: tcti).output
        var counter = -1
        var inLockout = false
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            if parts[0] == "TPM2_PT_LOCKOUT_COUNTER" { counter = Int(parts[1].dropFirst(2), radix: 16) ?? -1 }
            if parts[0] == "inLockout" { inLockout = parts[1] == "1" }
        }
        return (counter, inLockout)
    }
}

enum SoftwareTPMError: Error {
    case missing
    case failed(String)
}

struct ProcessOutput {
    var status: Int32
    var output: String
}

/// Runs a program to completion; stdout and stderr together.
/// A `daemon` keeps no pipe: its forked child would hold it open, and reading would never end.
func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], daemon: Bool = false) async throws -> ProcessOutput {
    if daemon {
        let exit = try await ChildProcess.start(executable, arguments, environment: environment).exit()
        return ProcessOutput(status: exit.code, output: "")
    }
    let result = try await Shell.run(executable, arguments, environment: environment)
    return ProcessOutput(status: result.status, output: result.stdout + result.stderr)
}
