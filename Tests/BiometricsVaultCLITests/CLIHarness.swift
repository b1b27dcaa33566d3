import BiometricsVaultTestSupport
import Foundation
import Testing

/// The documented exit codes (`--help`, Docs/CLI.md). Literal on purpose: they are a contract.
enum Exit {
    static let ok: Int32 = 0
    static let notFound: Int32 = 2
    static let cancelled: Int32 = 3
    static let storeUnavailable: Int32 = 6
    static let badInput: Int32 = 8
    static let biometricsUnavailable: Int32 = 9
    static let wrongState: Int32 = 10
    static let corruptedItem: Int32 = 11
    static let outputFailed: Int32 = 14
    static let usage: Int32 = 64
}

/// What the CLI tests need from the machine, each looked at once per test process.
enum CLINeeds {
    /// gnome-keyring on the session bus, usable as `doctor` sees it.
    static let secretService = DaemonNeed(
        "a usable Secret Service on the session bus", remedy: "scripts/setup/20-secret-service.sh", probe: secretServiceProblem)
    /// fprintd with libfprint's virtual sensor on the system bus.
    static let fingerprint = DaemonNeed(
        "fprintd with the virtual sensor", remedy: "scripts/setup/30-fprintd-polkit.sh", probe: fingerprintProblem)
    /// The test user whose login password is known (PAM checks it).
    static let testUser = DaemonNeed(
        "BV_TEST_USER and BV_TEST_PASSWORD", remedy: "scripts/setup/30-fprintd-polkit.sh",
        problem: ["BV_TEST_USER", "BV_TEST_PASSWORD"].allSatisfy { ProcessInfo.processInfo.environment[$0]?.isEmpty == false } ? nil : "not set")

    @Sendable private static func secretServiceProblem() async -> String? {
        do {
            let sandbox = try CLISandbox(keepSessionBus: true)
            defer { sandbox.remove() }
            let doctor = try await sandbox.run(["doctor", "--json"])
            let components = doctor.stdout.jsonObject?["components"] as? [[String: Any]] ?? []
            let secretService = components.first { $0["name"] as? String == "secret-service" }
            if secretService?["isUsable"] as? Bool == true { return nil }
            return secretService?["detail"] as? String ?? doctor.stderr
        } catch {
            return "doctor did not run: \(error)"
        }
    }

    @Sendable private static func fingerprintProblem() async -> String? {
        guard ProcessInfo.processInfo.environment["BV_FPRINT_SOCKET"] != nil else { return "BV_FPRINT_SOCKET is not set" }
        do {
            let sandbox = try CLISandbox()
            defer { sandbox.remove() }
            let device = try await sandbox.run(
                executable: URL(fileURLWithPath: "/usr/bin/busctl"),
                ["--system", "call", "net.reactivated.Fprint", "/net/reactivated/Fprint/Manager",
                 "net.reactivated.Fprint.Manager", "GetDefaultDevice"])
            return device.status == 0 ? nil : device.stderr
        } catch {
            return "busctl did not run: \(error)"
        }
    }
}

/// The directory of this test target's sources (golden files live in `Golden/`).
func goldenURL(_ name: String, file: StaticString = #filePath) -> URL {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
}

/// A program running on a pty, fed through `script`'s stdin.
final class PTYSession {
    let process: ChildProcess
    private let input: Int32
    private let buffer = LockedText()
    private let reader: Task<Void, Never>

    init(command: String, environment: [String: String]) async throws {
        let child = try await Shell.spawn(
            "/usr/bin/script",
            // `exec`: with dash as `script`'s shell, `sh -c` stays the CLI's parent, dies of Ctrl-C itself
            // and `script -e` reports 130, whatever the CLI did with the signal. `env --default-signal`: a
            // login shell's terminal delivers Ctrl-C, but a test run started in the background (a
            // non-interactive shell's `&`) passes SIGINT on ignored, and an ignored signal stays ignored
            // across exec.
            ["-q", "-f", "-e", "-c", "exec env --default-signal=INT,QUIT " + command, "/dev/null"],
            environment: environment, replacing: true, mergingErrors: true)
        process = child.process
        input = child.stdin
        let buffer = buffer
        let output = child.stdout
        reader = Task {
            while let chunk = try? await Shell.readChunk(output) { buffer.append(Data(chunk)) }
            close(output)
        }
    }

    var text: String { buffer.text }

    /// Waits until the terminal shows `marker` (bounded, so a broken prompt fails instead of hanging).
    func waitFor(_ marker: String, seconds: Int = 60) async throws -> Bool {
        for _ in 0..<(seconds * 20) {
            if text.contains(marker) { return true }
            if !process.isRunning { return text.contains(marker) }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits until `marker` appeared `count` times.
    func waitFor(_ marker: String, count: Int, seconds: Int = 60) async throws -> Bool {
        for _ in 0..<(seconds * 20) {
            if text.components(separatedBy: marker).count > count { return true }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return text.components(separatedBy: marker).count > count
    }

    /// Waits until the session's terminal has echo off: some programs (polkit's `pkttyagent`) print
    /// their password prompt before they switch echo off, with a flush of pending input; typed at the
    /// prompt, the answer would be echoed and then dropped.
    func waitForEchoOff(seconds: Int = 30) async throws -> Bool {
        for _ in 0..<(seconds * 100) {
            if let terminal = terminalPath() {
                let fd = open(terminal, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 {
                    var mode = termios()
                    let read = tcgetattr(fd, &mode)
                    close(fd)
                    if read == 0, mode.c_lflag & tcflag_t(ECHO) == 0 { return true }
                }
            }
            if !process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The session's terminal (`/dev/pts/N`): standard input of the deepest process below `script` that
    /// reads one. A program that makes a terminal of its own below it (`runuser --pty` in the systemd
    /// box) puts the outer one in raw mode, and its prompts are on the inner one.
    private func terminalPath() -> String? {
        var pending = [(pid: process.processIdentifier, depth: 0)]
        var found: (path: String, depth: Int)?
        while let (pid, depth) = pending.popLast() {
            if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/0"), path.hasPrefix("/dev/pts/"),
                depth > found?.depth ?? -1
            {
                found = (path, depth)
            }
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            pending += children.split(separator: " ").compactMap { pid_t($0) }.map { ($0, depth + 1) }
        }
        return found?.path
    }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    /// Waits for the end and for the last output; the exit code (or the signal's number).
    func finish() async throws -> Int32 {
        let exit = try await process.exit()
        await reader.value
        close(input)
        return exit.code
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
