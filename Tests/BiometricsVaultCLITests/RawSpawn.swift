import BiometricsVaultTestSupport
import Foundation
import Testing

/// Runs the built CLI with exactly the file descriptors and argv bytes a test needs, which
/// Foundation's `Process` cannot give: stdout on /dev/full, closed, or a pipe whose reader is gone;
/// argv bytes that are not UTF-8; a stdin pipe that never closes. Every run has a deadline: a CLI that
/// hangs is killed and reported as `timedOut`, so a regression fails instead of hanging the suite.
struct RawSpawn {
    enum Input {
        case text(String)
        /// A pipe whose writing end the test keeps open: reading it blocks forever.
        case neverClosingPipe
    }

    enum Output {
        case captured
        case devFull
        case closed
        /// A pipe whose reading end was closed before the CLI started: writes fail with EPIPE.
        case brokenPipe
    }

    struct Outcome: CustomStringConvertible {
        /// The exit status, when the process exited.
        var exitStatus: Int32?
        /// The signal that ended it, when one did.
        var signal: Int32?
        var timedOut: Bool
        var stdout: String
        var stderr: String

        var description: String {
            "exit \(exitStatus.map(String.init) ?? "-") signal \(signal.map(String.init) ?? "-") timedOut \(timedOut) stderr: \(stderr)"
        }
    }

    let sandbox: CLISandbox

    /// Starts the CLI (or `executable`) and returns its pid with the descriptors the test keeps.
    func start(
        _ arguments: [[UInt8]], executable: String = CLISandbox.binary.path, stdin: Input = .text(""),
        stdout: Output = .captured, stderr: Output = .captured
    ) throws -> Running {
        let id = UUID().uuidString
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentKeeps: [Int32] = []
        var closeAfterSpawn: [Int32] = []

        switch stdin {
        case .text(let text):
            let path = try sandbox.file("stdin-\(id)", text)
            posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .neverClosingPipe:
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
            posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
            posix_spawn_file_actions_addclose(&actions, fds[1])
            closeAfterSpawn.append(fds[0])
            parentKeeps.append(fds[1])
        }
        let capturePaths = [sandbox.root.path + "/stdout-\(id)", sandbox.root.path + "/stderr-\(id)"]
        for (fd, output) in [(Int32(1), stdout), (Int32(2), stderr)] {
            switch output {
            case .captured:
                posix_spawn_file_actions_addopen(&actions, fd, capturePaths[Int(fd) - 1], O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .devFull:
                posix_spawn_file_actions_addopen(&actions, fd, "/dev/full", O_WRONLY, 0)
            case .closed:
                posix_spawn_file_actions_addclose(&actions, fd)
            case .brokenPipe:
                var fds: [Int32] = [0, 0]
                guard pipe(&fds) == 0 else { throw POSIXError(.EIO) }
                close(fds[0])
                posix_spawn_file_actions_adddup2(&actions, fds[1], fd)
                closeAfterSpawn.append(fds[1])
            }
        }
        let argv = [Array(executable.utf8)] + arguments
        let cArgv: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { buffer[index] = CChar(bitPattern: byte) }
            buffer[bytes.count] = 0
            return buffer
        } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = sandbox.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArgv { pointer?.deallocate() }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, cArgv, cEnvironment)
        for fd in closeAfterSpawn { close(fd) }
        guard spawned == 0 else {
            for fd in parentKeeps { close(fd) }
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        return Running(pid: pid, keptOpen: parentKeeps, capturePaths: capturePaths)
    }

    /// Runs to the end (or the deadline).
    func run(
        _ arguments: [String], stdin: Input = .text(""), stdout: Output = .captured, stderr: Output = .captured
    ) throws -> Outcome {
        try start(arguments.map { Array($0.utf8) }, stdin: stdin, stdout: stdout, stderr: stderr).finish()
    }

    final class Running {
        let pid: pid_t
        private var keptOpen: [Int32]
        private let capturePaths: [String]

        init(pid: pid_t, keptOpen: [Int32], capturePaths: [String]) {
            self.pid = pid
            self.keptOpen = keptOpen
            self.capturePaths = capturePaths
        }

        /// Waits up to `seconds` (then kills it), closes what the test kept open, and collects the output.
        func finish(seconds: Int = 60) -> Outcome {
            var status: Int32 = 0
            var timedOut = false
            var waited = 0
            while waitpid(pid, &status, WNOHANG) == 0 {
                if waited >= seconds * 20 {
                    timedOut = true
                    kill(pid, SIGKILL)
                    _ = waitpid(pid, &status, 0)
                    break
                }
                usleep(50_000)
                waited += 1
            }
            for fd in keptOpen { close(fd) }
            keptOpen = []
            let signal = status & 0x7F
            return Outcome(
                exitStatus: signal == 0 ? (status >> 8) & 0xFF : nil, signal: signal == 0 ? nil : signal,
                timedOut: timedOut,
                stdout: CLISandbox.text(of: URL(fileURLWithPath: capturePaths[0])),
                stderr: CLISandbox.text(of: URL(fileURLWithPath: capturePaths[1])))
        }
    }
}
